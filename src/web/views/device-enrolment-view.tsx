/** @jsxImportSource hono/jsx */
/**
 * Replace a device on the link: forget its key and open enrolment for its UID for one hour
 * (docs/device-link.md §4.4). The answer names the UID and the window's end, never a key.
 */
import { CSRF_FIELD } from '../session.js';
import { Field } from './fields.js';

export interface EnrolmentResult {
  readonly ok: boolean;
  readonly text: string;
}

export function DeviceEnrolmentView(props: {
  partialUid: string;
  error?: string[];
  result: EnrolmentResult | null;
  csrf: string;
}) {
  return (
    <div>
      <section class="card">
        <h2>Replace a device (reset its link key)</h2>
        <p>
          The gateway forgets the device's link key and lets its UID enrol again for one hour. Power up the replacement
          device within that time; until then the old device keeps its link, but its key no longer proves it.
        </p>
        <form method="post" action="/device/enrolment" class="stack">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <div class="form-grid">
            <Field
              name="partial_uid"
              label="Partial UID"
              hint="last hex digits of the UID"
              value={props.partialUid}
              errors={props.error}
              required
            />
          </div>
          <div>
            <button type="submit" class="primary">
              Reset the key
            </button>
          </div>
        </form>
      </section>
      {props.result && (
        <section class="card" id="enrolment-result">
          <p class={props.result.ok ? 'alert ok' : 'alert error'}>{props.result.text}</p>
        </section>
      )}
    </div>
  );
}
