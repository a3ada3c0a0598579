/** @jsxImportSource hono/jsx */
/**
 * Users and grants. Reading user records needs `settings` (as GET /api/settings); changing the
 * privileged grants needs `users` (as PUT /api/users/:id/grants). Accounts themselves are edited
 * under Settings → users.
 */
import { CSRF_FIELD } from '../session.js';

export interface UserRow {
  readonly id: number;
  /** null when the viewer lacks `settings` (the API would not show it either). */
  readonly login: string | null;
  readonly scopes: readonly string[] | null;
  readonly receivers: string | null;
  readonly tokenTime: number | null;
  /** null when the viewer lacks `users`. */
  readonly grants: readonly string[] | null;
}

export interface UsersViewProps {
  readonly rows: readonly UserRow[];
  readonly grantable: readonly string[];
  readonly csrf: string;
  readonly notice: { ok: boolean; text: string } | null;
  readonly canEditAccounts: boolean;
}

export function UsersView(props: UsersViewProps) {
  return (
    <section class="card">
      <div class="toolbar">
        <h2>Users and grants</h2>
        {props.canEditAccounts && (
          <a class="button" href="/settings/users">
            Edit accounts
          </a>
        )}
      </div>
      {props.notice && <p class={props.notice.ok ? 'alert ok' : 'alert error'}>{props.notice.text}</p>}
      <div class="table-wrap">
        <table class="grid" id="users">
          <thead>
            <tr>
              <th>Id</th>
              <th>Login</th>
              <th>Scopes</th>
              <th>Receivers</th>
              <th>Token life</th>
              <th>Grants</th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((u) => (
              <tr data-user={String(u.id)}>
                <td>{u.id}</td>
                <td>{u.login ?? '—'}</td>
                <td>{u.scopes ? u.scopes.join(', ') || 'none' : '—'}</td>
                <td>{u.receivers ?? '—'}</td>
                <td>{u.tokenTime === null ? '—' : `${u.tokenTime} min`}</td>
                <td>
                  {u.grants === null ? (
                    '—'
                  ) : (
                    <form method="post" action={`/users/${u.id}/grants`} class="grants">
                      <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
                      {props.grantable.map((g) => (
                        <label class="check">
                          <input type="checkbox" name="scopes" value={g} checked={u.grants!.includes(g)} /> {g}
                        </label>
                      ))}
                      <button type="submit" class="link">
                        Save grants
                      </button>
                    </form>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
