/** @jsxImportSource hono/jsx */
/** The login form (same accounts and throttle as POST /api/login). */
import { CSRF_FIELD } from '../session.js';

export interface LoginViewProps {
  readonly csrf: string;
  readonly next: string;
  readonly login?: string;
  readonly error?: string;
}

export function LoginView(props: LoginViewProps) {
  return (
    <section class="card login">
      <h1>Log in</h1>
      <p class="muted">Use your Vigil account (the same as for the management API).</p>
      {props.error && (
        <p class="alert error" role="alert" id="login-error">
          {props.error}
        </p>
      )}
      <form method="post" action="/login" class="stack">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <input type="hidden" name="next" value={props.next} />
        <label>
          Login
          <input name="login" autocomplete="username" required value={props.login ?? ''} autofocus />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit" class="primary">
          Log in
        </button>
      </form>
    </section>
  );
}
