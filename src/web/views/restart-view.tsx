/** @jsxImportSource hono/jsx */
/** Restart services: stops and starts every receiver and output, after a confirmation. */
import { CSRF_FIELD } from '../session.js';

export function RestartView(props: {
  csrf: string;
  notice: { ok: boolean; text: string } | null;
  needConfirm: boolean;
}) {
  return (
    <section class="card">
      <h2>Restart receivers and outputs</h2>
      <p>
        Every receiver and output is stopped and started again with the current settings. Devices are disconnected for a
        moment and reconnect by themselves; events they send meanwhile are retried by the devices. Use it to apply
        receiver, output or protocol changes without restarting the gateway.
      </p>
      {props.notice && <p class={props.notice.ok ? 'alert ok' : 'alert error'}>{props.notice.text}</p>}
      <form method="post" action="/restart" class="stack" data-confirm="Restart all receivers and outputs now?">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <label class="check">
          <input
            type="checkbox"
            name="confirm"
            value="yes"
            required
            aria-invalid={props.needConfirm ? 'true' : undefined}
          />{' '}
          I understand that devices are disconnected briefly
        </label>
        {props.needConfirm && (
          <p class="field-error" data-error-for="confirm">
            Tick the box to confirm the restart.
          </p>
        )}
        <div>
          <button type="submit" class="danger">
            Restart services
          </button>
        </div>
      </form>
    </section>
  );
}
