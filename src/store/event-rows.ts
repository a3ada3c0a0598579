/**
 * The journal's statements (their columns from journal-columns.ts) and the mapping from its rows
 * (snake_case SQL) to StoredEvent.
 */
import { JOURNAL_COLUMN_NAMES, type EventRow } from './journal-columns.js';
import type { StoredEvent } from '../core/event-row.js';

/** Bound parameters per row. */
export const EVENT_INSERT_PARAMS = JOURNAL_COLUMN_NAMES.length;

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
  return `INSERT INTO events (id, ${JOURNAL_COLUMN_NAMES.join(', ')}) VALUES ${tuples.join(', ')}`;
}

/**
 * One row, its id left to SQLite (max(rowid) + 1): the bare statement of the durable floor
 * (bench/lib/durable-floor.ts), not the journal's.
 */
export const INSERT_EVENT_SQL = `INSERT INTO events (${JOURNAL_COLUMN_NAMES.join(', ')}) VALUES (${PLACEHOLDERS})`;

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
