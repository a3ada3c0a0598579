/**
 * The journal row, described once (docs/writer.md §The journal row): every column of `events` after
 * its id, in the table's order, with the field it is called by in the process, where its value comes
 * from when a receiver's frame is journaled, its kind (how it is encoded for SQLite and for the MySQL
 * mirror) and its presence. Every shape of the row is derived from this list by mapped types: the
 * event to store (`NewEvent`), the stored event (`StoredEvent`), the SQLite row (`EventRow`), the
 * wire row that crosses to the writer thread (`WireRow`) and the INSERT's parameters
 * (`EventInsertParams`); so are the INSERT (event-rows.ts) and the mirror (mysql-sync/remote-rows.ts).
 *
 * Sources, for a receiver's frame: `frame` values are the frame's, shared by its rows, and travel
 * once per frame (WireFrame); `row` values travel in the wire row; `writer` values are decided by
 * the writer thread inside the transaction (the object a frame belongs to).
 */
import { EVENT_CLASSES } from '../core/event-class.js';
import { EVENT_QUALIFIERS, RECEIVER_KINDS } from './types.js';

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

type Columns = typeof JOURNAL_COLUMNS;
type Column = Columns[number];

/** Flattens an intersection so an editor shows one object type. */
type Flat<T> = { [K in keyof T]: T[K] } & {};

/** A column's value in the process; `Blob` is how its bytes are held. */
type Value<C extends Column, Blob> = C['kind'] extends 'time' | 'integer'
  ? number
  : C['kind'] extends 'bool'
    ? boolean
    : C['kind'] extends 'blob'
      ? Blob
      : C extends { readonly values: readonly (infer V)[] }
        ? V
        : string;
/** A column's value as SQLite holds it. */
type SqlOf<C extends Column> = C['kind'] extends 'bool' ? 0 | 1 : Value<C, Buffer>;
/** null where the column may be NULL. */
type Null<C extends Column> = C['presence'] extends 'required' | 'defaulted' ? never : null;
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

/** A row of `SELECT * FROM events` as better-sqlite3 returns it. */
export type EventRow = Flat<{ id: number } & { [C in Column as C['name']]: SqlOf<C> | Null<C> }>;

/** NOT NULL in the schema. */
export function notNull(c: JournalColumn): boolean {
  return c.presence === 'required' || c.presence === 'defaulted';
}

/** The journal's column names in the table's order (the id is bound apart). */
export const JOURNAL_COLUMN_NAMES: readonly string[] = JOURNAL_COLUMNS.map((c) => c.name);

/** Codes are compared exactly in queries; SIA codes are upper-case letters, CID codes hex. */
export function storedCode(code: string | null | undefined): string | null {
  return code == null ? null : code.toUpperCase();
}

/** A value as better-sqlite3 binds it. */
export type SqlValue = number | string | Buffer | null;

/** One journal row's parameters, in the table's column order: one element per column, each of its type. */
export type EventInsertParams = SqlTuple<Columns>;
type SqlTuple<T extends readonly Column[]> = { -readonly [I in keyof T]: SqlOf<T[I]> | Null<T[I]> };

/** The columns a wire row carries (source `row`), in the table's order. */
type RowColumns<T extends readonly Column[]> = T extends readonly [
  infer H extends Column,
  ...infer R extends readonly Column[],
]
  ? H extends { readonly source: 'row' }
    ? [H, ...RowColumns<R>]
    : RowColumns<R>
  : [];
type WireColumns = RowColumns<Columns>;

/**
 * One journal row's own values as they cross to the writer thread: a flat array in the table's
 * order (docs/writer.md §Crossing), one element per `row` column, a defaulted value already
 * filled in. Read and written by name through wireField / setWireField.
 */
export type WireRow = WireTuple<WireColumns>;
type WireTuple<T extends readonly Column[]> = { -readonly [I in keyof T]: Value<T[I], never> | Null<T[I]> };

/** The fields a wire row carries. */
export type RowField = WireColumns[number]['field'];

const ROW_COLUMNS: readonly JournalColumn[] = JOURNAL_COLUMNS.filter((c) => c.source === 'row');
/** Field -> its place in the wire row. */
const ROW_INDEX: ReadonlyMap<string, number> = new Map(ROW_COLUMNS.map((c, i) => [c.field, i]));

/** The frame's values that its rows share (WireFrame, or a NewEvent itself). */
export type FrameValues = Pick<NewEvent, 'receivedAt' | 'receiverId' | 'receiverKind' | 'transport' | 'remoteAddress'>;

function indexOf(field: string): number {
  const i = ROW_INDEX.get(field);
  if (i === undefined) throw new Error(`the wire row carries no ${field}`);
  return i;
}

export function wireField<F extends RowField>(row: WireRow, field: F): NonNullable<NewEvent[F]> | null {
  return row[indexOf(field)] as NonNullable<NewEvent[F]> | null;
}

export function setWireField<F extends RowField>(row: WireRow, field: F, value: NewEvent[F]): void {
  (row as unknown[])[indexOf(field)] = value;
}

/*
 * The four functions below run once per event on the ingest's path, on one side of the thread
 * boundary or the other. They are written out, one element per column in the table's order: as fast
 * as code gets (a loop over the list reading fields by computed name costs about 0.5 µs more per
 * row and function). The compiler checks each element's type and their count against the list's
 * types (WireRow, EventInsertParams); test/store/journal-columns.test.ts checks that every value
 * lands in the column of its name, so two columns of one type swapped fail there.
 */

/** A NewEvent's wire row (the main thread's side). */
export function wireRow(e: NewEvent): WireRow {
  return [
    e.deviceTime ?? null,
    e.deviceTimeText ?? null,
    e.account,
    e.dc09Receiver ?? null,
    e.dc09Line ?? null,
    e.sequence ?? null,
    e.protocol,
    e.encrypted,
    e.eventClass,
    e.qualifier ?? null,
    e.code ?? null,
    e.groupNo ?? null,
    e.zoneNo ?? null,
    e.text ?? null,
    e.flags ?? 0,
  ];
}

/**
 * The insert parameters of one row of a frame (the writer's side), built straight from the frame's
 * values and the wire row, no NewEvent in between. `raw` is the frame's bytes, shared by its rows;
 * `objectId` what the writer decided.
 */
export function insertParams(
  frame: FrameValues,
  row: WireRow,
  raw: Buffer,
  objectId: number | null,
): EventInsertParams {
  return [
    frame.receivedAt,
    row[0],
    row[1],
    frame.receiverId,
    frame.receiverKind,
    frame.transport ?? null,
    frame.remoteAddress ?? null,
    objectId,
    row[2],
    row[3],
    row[4],
    row[5],
    row[6],
    row[7] ? 1 : 0,
    row[8],
    row[9],
    storedCode(row[10]),
    row[11],
    row[12],
    row[13],
    row[14],
    raw,
  ];
}

/** Where a wire row's values are packed for the trip to the writer thread (src/writer/value-pack.ts). */
export interface RowPacker {
  num(value: number | null): void;
  bool(value: boolean): void;
  str(value: string | null): void;
}

export interface RowReader {
  num(): number | null;
  /** A number that is never absent. */
  int(): number;
  bool(): boolean;
  str(): string | null;
}

/** A wire row into the packer, value by value in the row's order (readRow reads them back). */
export function packRow(p: RowPacker, row: WireRow): void {
  p.num(row[0]);
  p.str(row[1]);
  p.str(row[2]);
  p.str(row[3]);
  p.str(row[4]);
  p.str(row[5]);
  p.str(row[6]);
  p.bool(row[7]);
  p.str(row[8]);
  p.str(row[9]);
  p.str(row[10]);
  p.str(row[11]);
  p.str(row[12]);
  p.str(row[13]);
  p.num(row[14]);
}

/**
 * The wire row packRow wrote, read back in the same order. The packer keeps strings as strings:
 * an enum or a required text comes back as the value packRow was given.
 */
export function readRow(r: RowReader): WireRow {
  return [
    r.num(),
    r.str(),
    r.str() as string,
    r.str(),
    r.str(),
    r.str(),
    r.str() as string,
    r.bool(),
    r.str() as NewEvent['eventClass'],
    r.str() as NonNullable<NewEvent['qualifier']> | null,
    r.str(),
    r.str(),
    r.str(),
    r.str(),
    r.int(),
  ];
}

/** A whole NewEvent's insert parameters (internal events, tests, tools): the same builders. */
export function toInsertParams(event: NewEvent): EventInsertParams {
  const raw = Buffer.from(event.raw.buffer, event.raw.byteOffset, event.raw.byteLength);
  return insertParams(event, wireRow(event), raw, event.objectId ?? null);
}
