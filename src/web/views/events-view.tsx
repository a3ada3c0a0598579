/** @jsxImportSource hono/jsx */
/**
 * Events: newest first, filters by account, receiver, code and time (the API's parameters and
 * cursors), and a live tail (Server-Sent Events) on the first page. Without JavaScript the table
 * is complete and pages with the same cursors as GET /api/events.
 */
import type { EventItem } from '../../services/listing-items.js';
import { Field } from './fields.js';
import { utc } from './format.js';
import { FilterForm, Pager, ReceiverFilter } from './listing.js';

/** What a row of the table shows: fields of the API's item (the same JSON the live tail sends). */
export type EventRowView = Pick<
  EventItem,
  'id' | 'received_at' | 'receiver_id' | 'account' | 'qualifier' | 'code' | 'group_no' | 'zone_no' | 'text' | 'protocol'
>;

export interface EventsViewProps {
  readonly filters: Record<string, string>;
  readonly errors: Record<string, string[]>;
  readonly rows: readonly EventRowView[];
  readonly olderHref: string | null;
  readonly firstHref: string | null;
  /** The live stream's URL (first page only). */
  readonly liveHref: string | null;
}

export function EventRow(props: { e: EventRowView }) {
  const e = props.e;
  return (
    <tr data-id={String(e.id)}>
      <td data-label="Received" class="mono">
        {utc(e.received_at).replace(' UTC', '')}
      </td>
      <td data-label="Receiver">{e.receiver_id === null ? 'gateway' : e.receiver_id}</td>
      <td data-label="Account" class="mono">
        {e.account || '—'}
      </td>
      <td data-label="Q" class={e.qualifier ? `qual-${e.qualifier}` : ''}>
        {e.qualifier ?? '—'}
      </td>
      <td data-label="Code" class="mono">
        {e.code ?? '—'}
      </td>
      <td data-label="Zone" class="mono">
        {e.zone_no ?? '—'}
      </td>
      <td data-label="Text">{e.text ?? '—'}</td>
      <td data-label="Protocol">{e.protocol}</td>
    </tr>
  );
}

export function EventsView(props: EventsViewProps) {
  const f = props.filters;
  const general = props.errors[''] ?? [];
  return (
    <div>
      <section class="card">
        <FilterForm action="/events" label="Filter events" submit="Filter">
          <Field name="account" label="Account" value={f.account} errors={props.errors.account} placeholder="1234" />
          <ReceiverFilter value={f.receiver} errors={props.errors.receiver} />
          <Field name="code" label="Code" value={f.code} errors={props.errors.code} placeholder="BA, 130" />
          <Field
            name="from"
            label="From (UTC)"
            value={f.from}
            errors={props.errors.from}
            placeholder="2026-11-23T08:00Z"
          />
          <Field name="to" label="To (UTC)" value={f.to} errors={props.errors.to} placeholder="2026-11-24" />
        </FilterForm>
        {general.length > 0 && <p class="alert error">{general.join('; ')}</p>}
      </section>
      <section class="card">
        <div class="toolbar">
          <h2>Events</h2>
          {props.liveHref ? (
            <span id="live-state" class="pill live-state">
              live tail needs JavaScript
            </span>
          ) : (
            <span class="muted">older page · live tail on the newest page</span>
          )}
        </div>
        <div class="table-wrap">
          <table class="grid stack-narrow" id="events" data-live={props.liveHref ?? undefined}>
            <thead>
              <tr>
                <th>Received (UTC)</th>
                <th>Receiver</th>
                <th>Account</th>
                <th>Q</th>
                <th>Code</th>
                <th>Zone</th>
                <th>Text</th>
                <th>Protocol</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.length === 0 && (
                <tr class="empty-row">
                  <td colspan={8} class="empty">
                    No events match.
                  </td>
                </tr>
              )}
              {props.rows.map((e) => (
                <EventRow e={e} />
              ))}
            </tbody>
          </table>
        </div>
        <Pager firstHref={props.firstHref} first="Newest" olderHref={props.olderHref} end="end of journal" />
      </section>
    </div>
  );
}
