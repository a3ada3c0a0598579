/** @jsxImportSource hono/jsx */
/** Objects: lost ones first, then every object newest first; search by UID end or account. */
import { Field } from './fields.js';
import { ago, utc } from './format.js';
import { FilterForm, Pager, ReceiverFilter } from './listing.js';

export interface ObjectRowView {
  readonly id: number;
  readonly uid: string | null;
  readonly account: string;
  readonly oid: string;
  readonly override_oid: string | null;
  readonly hw_id: string | null;
  readonly main_object_id: number | null;
  readonly receiver_id: number;
  readonly remote_address: string | null;
  readonly last_seen: string | null;
  readonly connection_state: string;
}

export interface ObjectsViewProps {
  readonly filters: Record<string, string>;
  readonly errors: Record<string, string[]>;
  readonly lost: readonly ObjectRowView[];
  readonly rows: readonly ObjectRowView[];
  readonly olderHref: string | null;
  readonly firstHref: string | null;
  readonly now: number;
}

function ObjectsTable(props: { rows: readonly ObjectRowView[]; now: number; empty: string; id: string }) {
  return (
    <div class="table-wrap">
      <table class="grid stack-narrow" id={props.id}>
        <thead>
          <tr>
            <th>UID</th>
            <th>Account</th>
            <th>State</th>
            <th>Last seen</th>
            <th>Receiver</th>
            <th>OID (override)</th>
            <th>HW id</th>
            <th>Address</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.length === 0 && (
            <tr>
              <td colspan={8} class="empty">
                {props.empty}
              </td>
            </tr>
          )}
          {props.rows.map((o) => (
            <tr class={o.connection_state === 'lost' ? 'lost' : ''} data-object={String(o.id)}>
              <td data-label="UID" class="mono">
                {o.uid ?? (o.main_object_id !== null ? `↳ related of #${o.main_object_id}` : '—')}
              </td>
              <td data-label="Account" class="mono">
                {o.account}
              </td>
              <td data-label="State">
                <span class={`pill state-${o.connection_state}`}>{o.connection_state}</span>
              </td>
              <td data-label="Last seen" title={utc(o.last_seen)}>
                {ago(o.last_seen, props.now)}
              </td>
              <td data-label="Receiver">{o.receiver_id}</td>
              <td data-label="OID" class="mono">
                {o.oid}
                {o.override_oid !== null && <span class="hint"> (override)</span>}
              </td>
              <td data-label="HW id" class="mono">
                {o.hw_id ?? '—'}
              </td>
              <td data-label="Address" class="mono">
                {o.remote_address ?? '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ObjectsView(props: ObjectsViewProps) {
  const f = props.filters;
  return (
    <div>
      <section class="card">
        <FilterForm action="/objects" label="Search objects" submit="Search">
          <Field
            name="q"
            label="UID or account"
            value={f.q}
            errors={props.errors.q}
            placeholder="end of UID, or account"
          />
          <ReceiverFilter value={f.receiver} errors={props.errors.receiver} />
        </FilterForm>
      </section>
      {props.firstHref === null && (
        <section class="card">
          <h2>Lost objects ({props.lost.length})</h2>
          <ObjectsTable rows={props.lost} now={props.now} empty="No lost objects." id="lost-objects" />
        </section>
      )}
      <section class="card">
        <h2>All objects</h2>
        <ObjectsTable rows={props.rows} now={props.now} empty="No objects match." id="objects" />
        <Pager firstHref={props.firstHref} first="First page" olderHref={props.olderHref} end="end of list" />
      </section>
    </div>
  );
}
