/**
 * The items of the two listings as the contract shows them (GET /api/events, GET /api/objects and
 * the event stream; docs/api.md "Objects and events"); the page's tables and live tail show the same.
 */
import type { ColumnOf, Flat } from '../core/event-row.js';
import type { ApiEventRow, ApiObjectRow } from './ports.js';
import { toIso } from './query-params.js';

type ItemField = Exclude<keyof ApiEventRow, 'id'>;
/** Times as ISO 8601 text, the frame's bytes as hex: null only where the column may be NULL. */
type ItemValue<F extends ItemField> = ColumnOf<F>['kind'] extends 'time' | 'blob'
  ? string | Extract<ApiEventRow[F], null>
  : ApiEventRow[F];

/**
 * One journal row as the API shows it: each field under its column's name (src/core/event-row.ts), times as
 * ISO 8601 text, `raw` the frame as upper-case hex (lossless for binary frames).
 */
export type EventItem = Flat<
  { readonly id: number } & { readonly [F in ItemField as ColumnOf<F>['name']]: ItemValue<F> }
>;

export function eventItem(e: ApiEventRow): EventItem {
  return {
    id: e.id,
    received_at: toIso(e.receivedAt),
    device_time: toIso(e.deviceTime),
    receiver_id: e.receiverId,
    transport: e.transport,
    remote_address: e.remoteAddress,
    account: e.account,
    object_id: e.objectId,
    protocol: e.protocol,
    encrypted: e.encrypted,
    event_class: e.eventClass,
    qualifier: e.qualifier,
    code: e.code,
    group_no: e.groupNo,
    zone_no: e.zoneNo,
    text: e.text,
    flags: e.flags,
    raw: Buffer.from(e.raw.buffer, e.raw.byteOffset, e.raw.byteLength).toString('hex').toUpperCase(),
  };
}

export function objectItem(o: ApiObjectRow, overrideOid: string | null): Record<string, unknown> {
  return {
    id: o.id,
    uid: o.uid,
    account: o.account,
    oid: overrideOid ?? o.account,
    override_oid: overrideOid,
    hw_id: o.hwId,
    main_object_id: o.mainObjectId,
    receiver_id: o.receiverId,
    transport: o.transport,
    remote_address: o.remoteAddress,
    first_seen: toIso(o.firstSeen),
    last_seen: toIso(o.lastSeen),
    last_ping: toIso(o.lastPing),
    connection_state: o.connectionState,
    dc09_quirks: o.dc09Quirks ?? [],
  };
}
