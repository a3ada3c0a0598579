/** @jsxImportSource hono/jsx */
/** OID overrides: set one (the API's rules and messages) and, for users who see every receiver, list them. */
import { CSRF_FIELD } from '../session.js';
import type { WebOverride } from '../web-deps.js';
import { Field } from './fields.js';
import { utc } from './format.js';

export interface OverrideForm {
  readonly uid: string;
  readonly oid: string;
  readonly related_oid: string;
  readonly new_override_oid: string;
}

export interface OverridesViewProps {
  readonly form: OverrideForm;
  readonly errors: Record<string, string[]>;
  readonly notice: { ok: boolean; text: string } | null;
  /** null: the user is limited to some receivers and the list is not shown (docs/web.md). */
  readonly list: readonly WebOverride[] | null;
  readonly csrf: string;
}

export function OverridesView(props: OverridesViewProps) {
  const f = props.form;
  return (
    <div>
      <section class="card">
        <h2>Set an override OID</h2>
        <p class="muted">
          The override replaces the account the outputs send for a device (or one of its related objects). Identify the
          device by its UID, or by its OID when the UID is empty. All values are hex.
        </p>
        {props.notice && <p class={props.notice.ok ? 'alert ok' : 'alert error'}>{props.notice.text}</p>}
        <form method="post" action="/overrides" class="stack">
          <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
          <div class="form-grid">
            <Field name="uid" label="Device UID" value={f.uid} errors={props.errors.uid} />
            <Field name="oid" label="or device OID" value={f.oid} errors={props.errors.oid} />
            <Field
              name="related_oid"
              label="Related object OID"
              hint="optional"
              value={f.related_oid}
              errors={props.errors.related_oid}
            />
            <Field
              name="new_override_oid"
              label="New override OID"
              value={f.new_override_oid}
              errors={props.errors.new_override_oid}
              required
            />
          </div>
          <div>
            <button type="submit" class="primary">
              Save override
            </button>
          </div>
        </form>
      </section>
      <section class="card">
        <h2>Overrides in force</h2>
        {props.list === null ? (
          <p class="muted">The list is shown to users who see every receiver.</p>
        ) : props.list.length === 0 ? (
          <p class="empty">No overrides set.</p>
        ) : (
          <div class="table-wrap">
            <table class="grid" id="overrides">
              <thead>
                <tr>
                  <th>Device by</th>
                  <th>Value</th>
                  <th>Related OID</th>
                  <th>Override OID</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {props.list.map((o) => (
                  <tr>
                    <td>{o.matchKind.toUpperCase()}</td>
                    <td class="mono">{o.matchValue}</td>
                    <td class="mono">{o.relatedOid ?? '—'}</td>
                    <td class="mono">{o.overrideOid}</td>
                    <td>{utc(o.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
