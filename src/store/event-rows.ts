/** Mapping between journal rows (snake_case SQL) and the camelCase event types. */
import type { EventClass, EventQualifier, NewEvent, ReceiverKind, StoredEvent } from './types.js';

export interface EventRow {
  id: number;
  received_at: number;
  device_time: number | null;
  device_time_text: string | null;
  receiver_id: number | null;
  receiver_kind: ReceiverKind | null;
  transport: string | null;
  remote_address: string | null;
  object_id: number | null;
  account: string;
  dc09_receiver: string | null;
  dc09_line: string | null;
  sequence: string | null;
  protocol: string;
  encrypted: number;
  event_class: EventClass;
  qualifier: EventQualifier | null;
  code: string | null;
  group_no: string | null;
  zone_no: string | null;
  text: string | null;
  flags: number;
  raw: Buffer;
}

/** The journal's columns in the order of EventInsertParams (the id is bound apart: insertEventsSql). */
const INSERT_COLUMNS = [
  'received_at',
  'device_time',
  'device_time_text',
  'receiver_id',
  'receiver_kind',
  'transport',
  'remote_address',
  'object_id',
  'account',
  'dc09_receiver',
  'dc09_line',
  'sequence',
  'protocol',
  'encrypted',
  'event_class',
  'qualifier',
  'code',
  'group_no',
  'zone_no',
  'text',
  'flags',
  'raw',
] as const;

/** Bound parameters per row. */
export const EVENT_INSERT_PARAMS = INSERT_COLUMNS.length;

/** One row's positional parameters. */
const PLACEHOLDERS = new Array<string>(EVENT_INSERT_PARAMS).fill('?').join(', ');

/**
 * One INSERT of `rows` rows (`VALUES (...), (...)`) with explicit ids `@firstId`, `@firstId + 1`, …
 * (the journal assigns them: docs/store.md "Event ids"), the columns as positional parameters row
 * after row. Positional: binding 22 named ones per row cost more than the insert itself; the one
 * named parameter is bound once per statement.
 */
export function insertEventsSql(rows: number): string {
  const tuples = Array.from(
    { length: rows },
    (_, i) => `(${i === 0 ? '@firstId' : `@firstId + ${i}`}, ${PLACEHOLDERS})`,
  );
  return `INSERT INTO events (id, ${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`;
}

/**
 * One row, its id left to SQLite (max(rowid) + 1): the bare statement of the durable floor
 * (bench/lib/durable-floor.ts), not the journal's.
 */
export const INSERT_EVENT_SQL = `INSERT INTO events (${INSERT_COLUMNS.join(', ')}) VALUES (${PLACEHOLDERS})`;

/** One row's values in INSERT_EVENT_SQL's order. */
export type EventInsertParams = unknown[];

export function toInsertParams(event: NewEvent): EventInsertParams {
  return [
    event.receivedAt,
    event.deviceTime ?? null,
    event.deviceTimeText ?? null,
    event.receiverId,
    event.receiverKind,
    event.transport ?? null,
    event.remoteAddress ?? null,
    event.objectId ?? null,
    event.account,
    event.dc09Receiver ?? null,
    event.dc09Line ?? null,
    event.sequence ?? null,
    event.protocol,
    event.encrypted ? 1 : 0,
    event.eventClass,
    event.qualifier ?? null,
    // Codes are compared exactly in queries; SIA codes are upper-case letters, CID codes hex.
    event.code == null ? null : event.code.toUpperCase(),
    event.groupNo ?? null,
    event.zoneNo ?? null,
    event.text ?? null,
    event.flags ?? 0,
    Buffer.from(event.raw.buffer, event.raw.byteOffset, event.raw.byteLength),
  ];
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    receivedAt: row.received_at,
    deviceTime: row.device_time,
    deviceTimeText: row.device_time_text,
    receiverId: row.receiver_id,
    receiverKind: row.receiver_kind,
    transport: row.transport,
    remoteAddress: row.remote_address,
    objectId: row.object_id,
    account: row.account,
    dc09Receiver: row.dc09_receiver,
    dc09Line: row.dc09_line,
    sequence: row.sequence,
    protocol: row.protocol,
    encrypted: row.encrypted === 1,
    eventClass: row.event_class,
    qualifier: row.qualifier,
    code: row.code,
    groupNo: row.group_no,
    zoneNo: row.zone_no,
    text: row.text,
    flags: row.flags,
    raw: row.raw,
  };
}
