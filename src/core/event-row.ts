/**
 * The event row, described once (docs/writer.md §The journal row): every column of the journal's `events` table
 * after its id, in the table's order, with the field it is called by in the process, where its value comes from
 * when a receiver's frame is journaled, its kind and its presence. Every shape of an event is derived from this list
 * by mapped types: the event to store (`NewEvent`), the stored event (`StoredEvent`) here; the SQLite row, the wire
 * row to the writer thread and the INSERT's parameters in src/store/journal-columns.ts; the API's row and item in
 * src/services/. The column names are also the API's field names (docs/api.md "Objects and events").
 *
 * Sources, for a receiver's frame: `frame` values are the frame's, shared by its rows, and travel once per frame
 * (WireFrame); `row` values travel in the wire row; `writer` values are decided by the writer thread inside the
 * transaction (the object a frame belongs to).
 */
import { EVENT_CLASSES } from './event-class.js';

/** How a device reached the gateway: the receiver's kind (an event's and an object's). */
export const RECEIVER_KINDS = ['tcp', 'udp', 'com', 'modem'] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];
/** A Contact ID event's qualifier: new event (E), restore (R), status report (P). */
export const EVENT_QUALIFIERS = ['E', 'R', 'P'] as const;
export type EventQualifier = (typeof EVENT_QUALIFIERS)[number];

type Source = 'frame' | 'row' | 'writer';
/**
 * integer, text (≤ 255 characters in the mirror), long (text the mirror keeps whole), enum (one of
 * `values`), time (ms epoch), bool (0/1 in SQL), code (stored upper-case), blob.
 */
export type Kind = 'integer' | 'text' | 'long' | 'enum' | 'time' | 'bool' | 'code' | 'blob';
/**
 * required: NOT NULL, and every NewEvent gives it. nullable: may be NULL, and every NewEvent says
 * so. optional: may be NULL, and a NewEvent may leave it out. defaulted: NOT NULL, and a NewEvent
 * may leave it out (stored as `fallback`).
 */
export type Presence = 'required' | 'nullable' | 'optional' | 'defaulted';

export interface JournalColumn {
  readonly name: string;
  readonly field: string;
  readonly source: Source;
  readonly kind: Kind;
  readonly presence: Presence;
  /** An enum's values. */
  readonly values?: readonly string[];
  /** What a defaulted column stores when a NewEvent leaves it out. */
  readonly fallback?: number;
}

export const JOURNAL_COLUMNS = [
  { name: 'received_at', field: 'receivedAt', source: 'frame', kind: 'time', presence: 'required' },
  /** The time the device put in the frame (its timestamp, or its local time when accepted). */
  { name: 'device_time', field: 'deviceTime', source: 'row', kind: 'time', presence: 'optional' },
  { name: 'device_time_text', field: 'deviceTimeText', source: 'row', kind: 'text', presence: 'optional' },
  /** Null only for events of the gateway itself (no receiver carried them). */
  { name: 'receiver_id', field: 'receiverId', source: 'frame', kind: 'integer', presence: 'nullable' },
  {
    name: 'receiver_kind',
    field: 'receiverKind',
    source: 'frame',
    kind: 'enum',
    presence: 'nullable',
    values: RECEIVER_KINDS,
  },
  { name: 'transport', field: 'transport', source: 'frame', kind: 'text', presence: 'optional' },
  { name: 'remote_address', field: 'remoteAddress', source: 'frame', kind: 'text', presence: 'optional' },
  { name: 'object_id', field: 'objectId', source: 'writer', kind: 'integer', presence: 'optional' },
  /** DC-09 account / OID exactly as received: text, leading zeros kept. */
  { name: 'account', field: 'account', source: 'row', kind: 'text', presence: 'required' },
  { name: 'dc09_receiver', field: 'dc09Receiver', source: 'row', kind: 'text', presence: 'optional' },
  { name: 'dc09_line', field: 'dc09Line', source: 'row', kind: 'text', presence: 'optional' },
  { name: 'sequence', field: 'sequence', source: 'row', kind: 'text', presence: 'optional' },
  /** 'SIA-DCS' | 'ADM-CID' | 'NULL' | 'INTERNAL' | ... */
  { name: 'protocol', field: 'protocol', source: 'row', kind: 'text', presence: 'required' },
  { name: 'encrypted', field: 'encrypted', source: 'row', kind: 'bool', presence: 'required' },
  {
    name: 'event_class',
    field: 'eventClass',
    source: 'row',
    kind: 'enum',
    presence: 'required',
    values: EVENT_CLASSES,
  },
  {
    name: 'qualifier',
    field: 'qualifier',
    source: 'row',
    kind: 'enum',
    presence: 'optional',
    values: EVENT_QUALIFIERS,
  },
  /** CID: 3 hex digits; SIA: 2-letter code. Stored upper-case (storedCode). */
  { name: 'code', field: 'code', source: 'row', kind: 'code', presence: 'optional' },
  { name: 'group_no', field: 'groupNo', source: 'row', kind: 'text', presence: 'optional' },
  { name: 'zone_no', field: 'zoneNo', source: 'row', kind: 'text', presence: 'optional' },
  /** SIA text, or extended data as JSON. */
  { name: 'text', field: 'text', source: 'row', kind: 'long', presence: 'optional' },
  /** EVENT_FLAG_* bits (types.ts). */
  { name: 'flags', field: 'flags', source: 'row', kind: 'integer', presence: 'defaulted', fallback: 0 },
  { name: 'raw', field: 'raw', source: 'frame', kind: 'blob', presence: 'required' },
] as const satisfies readonly JournalColumn[];

export type JournalColumns = typeof JOURNAL_COLUMNS;
export type Column = JournalColumns[number];

/** Flattens an intersection so an editor shows one object type. */
export type Flat<T> = { [K in keyof T]: T[K] } & {};

/** A column's value in the process; `Blob` is how its bytes are held. */
export type Value<C extends Column, Blob> = C['kind'] extends 'time' | 'integer'
  ? number
  : C['kind'] extends 'bool'
    ? boolean
    : C['kind'] extends 'blob'
      ? Blob
      : C extends { readonly values: readonly (infer V)[] }
        ? V
        : string;
/** null where the column may be NULL. */
export type Null<C extends Column> = C['presence'] extends 'required' | 'defaulted' ? never : null;
type Given<C extends Column> = C['presence'] extends 'required' | 'nullable' ? C : never;
type LeftOut<C extends Column> = C['presence'] extends 'optional' | 'defaulted' ? C : never;

/** An event to journal: what a receiver's frame decodes to, or the gateway's own event. */
export type NewEvent = Flat<
  { readonly [C in Column as Given<C>['field']]: Value<C, Uint8Array> | Null<C> } & {
    readonly [C in Column as LeftOut<C>['field']]?: Value<C, Uint8Array> | Null<C>;
  }
>;

/** A journaled event: its id and every column, null where it may be NULL. */
export type StoredEvent = Flat<
  { readonly id: number } & { readonly [C in Column as C['field']]: Value<C, Buffer> | Null<C> }
>;

/** NOT NULL in the schema. */
export function notNull(c: JournalColumn): boolean {
  return c.presence === 'required' || c.presence === 'defaulted';
}

/** The column that holds a field. */
export type ColumnOf<F extends Column['field']> = Extract<Column, { readonly field: F }>;
