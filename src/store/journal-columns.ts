/**
 * The journal row as SQLite and the writer thread see it (docs/writer.md §The journal row), made from the one column
 * list (src/core/event-row.ts): the SQLite row (`EventRow`), the INSERT's parameters (`EventInsertParams`), the wire
 * row that crosses to the writer thread (`WireRow`), and the four functions that build them on the ingest's path.
 * The INSERT (event-rows.ts) and the MySQL mirror (mysql-sync/remote-rows.ts) read the same list.
 */
import {
  JOURNAL_COLUMNS,
  type Column,
  type Flat,
  type JournalColumns,
  type JournalColumn,
  type NewEvent,
  type Null,
  type Value,
} from '../core/event-row.js';

/** A column's value as SQLite holds it. */
type SqlOf<C extends Column> = C['kind'] extends 'bool' ? 0 | 1 : Value<C, Buffer>;
/** A row of `SELECT * FROM events` as better-sqlite3 returns it. */
export type EventRow = Flat<{ id: number } & { [C in Column as C['name']]: SqlOf<C> | Null<C> }>;

/** The journal's column names in the table's order (the id is bound apart). */
export const JOURNAL_COLUMN_NAMES: readonly string[] = JOURNAL_COLUMNS.map((c) => c.name);

/** Codes are compared exactly in queries; SIA codes are upper-case letters, CID codes hex. */
export function storedCode(code: string | null | undefined): string | null {
  return code == null ? null : code.toUpperCase();
}

/** A value as better-sqlite3 binds it. */
export type SqlValue = number | string | Buffer | null;

/** One journal row's parameters, in the table's column order: one element per column, each of its type. */
export type EventInsertParams = SqlTuple<JournalColumns>;
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
type WireColumns = RowColumns<JournalColumns>;

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
