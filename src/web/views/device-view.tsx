/** @jsxImportSource hono/jsx */
/**
 * Device: send a hex command (control) or configuration to a device by partial UID. With
 * JavaScript each reply packet appears as it arrives (the form posts to /device/stream); without,
 * the form posts to /device and the page shows the whole reply.
 */
import { CSRF_FIELD } from '../session.js';
import { Field } from './fields.js';
import { explain } from '../device-words.js';

export interface DeviceForm {
  readonly kind: string;
  readonly partial_uid: string;
  readonly data: string;
  readonly cloud_access_code: string;
  readonly request_id: string;
  readonly response_required: boolean;
}

export interface DeviceResult {
  readonly reply: Record<string, unknown>;
}

export function summary(reply: Record<string, unknown>): { ok: boolean; text: string } {
  if (typeof reply.error === 'string') return { ok: false, text: `${reply.error}: ${explain(reply.error)}` };
  const packets = Array.isArray(reply.data) ? reply.data.length : 0;
  if (reply.status === 'configuration_sent') return { ok: true, text: 'Configuration sent (no reply requested).' };
  if (packets > 0) return { ok: true, text: `The device replied with ${packets} packet${packets === 1 ? '' : 's'}.` };
  return { ok: true, text: 'Sent; the device accepted it.' };
}

export function DeviceView(props: {
  form: DeviceForm;
  errors: Record<string, string[]>;
  result: DeviceResult | null;
  csrf: string;
}) {
  const f = props.form;
  const reply = props.result?.reply;
  const said = reply ? summary(reply) : null;
  return (
    <div>
      <section class="card">
        <h2>Send to a device</h2>
        <form method="post" action="/device" data-stream="/device/stream" class="stack">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <div class="form-grid">
            <label for="f-kind">
              Kind
              <select id="f-kind" name="kind">
                <option value="control" selected={f.kind !== 'config'}>
                  Command (control)
                </option>
                <option value="config" selected={f.kind === 'config'}>
                  Configuration
                </option>
              </select>
            </label>
            <Field
              name="partial_uid"
              label="Partial UID"
              hint="last hex digits of the UID"
              value={f.partial_uid}
              errors={props.errors.partial_uid}
              required
            />
            <Field
              name="data"
              label="Data (hex)"
              value={f.data}
              errors={props.errors.data}
              placeholder="0102A0"
              required
            />
            <Field
              name="cloud_access_code"
              label="Cloud access code"
              type="password"
              value={f.cloud_access_code}
              errors={props.errors.cloud_access_code}
            />
            <Field
              name="request_id"
              label="Request id"
              hint="optional, echoed back"
              value={f.request_id}
              errors={props.errors.request_id}
            />
          </div>
          <label class="check">
            <input type="checkbox" name="response_required" value="true" checked={f.response_required} /> Wait for the
            device's reply (at most 10 s)
          </label>
          <div>
            <button type="submit" class="primary">
              Send
            </button>
          </div>
        </form>
        <p>
          <a href="/device/enrolment">Replace a device (reset its link key)</a>
        </p>
      </section>
      <div id="device-result">
        {reply && said && (
          <section class="card">
            <h2>Reply</h2>
            <p class={said.ok ? 'alert ok' : 'alert error'}>{said.text}</p>
            {Array.isArray(reply.data) && (
              <ol class="packets" id="packets">
                {(reply.data as string[]).map((hex, i) => (
                  <li>
                    <span>#{i + 1}</span>
                    {hex || '(empty)'}
                  </li>
                ))}
              </ol>
            )}
            <dl class="reply-fields">
              {Object.entries(reply)
                .filter(([k]) => k !== 'data')
                .map(([k, v]) => (
                  <>
                    <dt>{k}</dt>
                    <dd>{String(v)}</dd>
                  </>
                ))}
            </dl>
          </section>
        )}
      </div>
    </div>
  );
}
