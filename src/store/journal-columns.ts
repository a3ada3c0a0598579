/**
 * The journal row, described once (docs/writer.md §The journal row): every column of `events` after
 * its id, in the table's order, with the NewEvent field it holds, where its value comes from when a
 * receiver's frame is journaled, and its kind (which decides how it is encoded for SQLite and for
 * the MySQL mirror). Everything that lists the columns in order is made from this list: the INSERT
 * (event-rows.ts), the wire row that crosses to the writer thread and the insert parameters the
 * writer builds from it (below), and the mirror's column list and rows (mysql-sync/remote-rows.ts).
 *
 * Sources, for a receiver's frame: `frame` values are the frame's, shared by its rows, and travel
 * once per frame (WireFrame); `row` values travel in the wire row; `writer` values are decided by
 * the writer thread inside the transaction (the object a frame belongs to).
 */
import type { NewEvent } from './types.js';

type Source = 'frame' | 'row' | 'writer';
/**
 * integer, text (≤ 255 characters in the mirror), long (text the mirror keeps whole), enum (a
 * closed set of short strings), time (ms epoch), bool (0/1), code (stored upper-case), blob.
 */
export type Kind = 'integer' | 'text' | 'long' | 'enum' | 'time' | 'bool' | 'code' | 'blob';

export interface JournalColumn {
  readonly name: string;
  readonly field: keyof NewEvent;
  readonly source: Source;
  readonly kind: Kind;
  /** NOT NULL in the schema; a NewEvent may still leave it out when `fallback` is set. */
  readonly required: boolean;
  /** What an absent optional field is stored as (null unless given). */
  readonly fallback?: number;
}

const column = (name: string, field: keyof NewEvent, source: Source, kind: Kind, required = false): JournalColumn => ({
  name,
  field,
  source,
  kind,
  required,
});

export const JOURNAL_COLUMNS: readonly JournalColumn[] = [
  column('received_at', 'receivedAt', 'frame', 'time', true),
  column('device_time', 'deviceTime', 'row', 'time'),
  column('device_time_text', 'deviceTimeText', 'row', 'text'),
  column('receiver_id', 'receiverId', 'frame', 'integer'),
  column('receiver_kind', 'receiverKind', 'frame', 'enum'),
  column('transport', 'transport', 'frame', 'text'),
  column('remote_address', 'remoteAddress', 'frame', 'text'),
  column('object_id', 'objectId', 'writer', 'integer'),
  column('account', 'account', 'row', 'text', true),
  column('dc09_receiver', 'dc09Receiver', 'row', 'text'),
  column('dc09_line', 'dc09Line', 'row', 'text'),
  column('sequence', 'sequence', 'row', 'text'),
  column('protocol', 'protocol', 'row', 'text', true),
  column('encrypted', 'encrypted', 'row', 'bool', true),
  column('event_class', 'eventClass', 'row', 'enum', true),
  column('qualifier', 'qualifier', 'row', 'enum'),
  column('code', 'code', 'row', 'code'),
  column('group_no', 'groupNo', 'row', 'text'),
  column('zone_no', 'zoneNo', 'row', 'text'),
  column('text', 'text', 'row', 'long'),
  { ...column('flags', 'flags', 'row', 'integer', true), fallback: 0 },
  column('raw', 'raw', 'frame', 'blob', true),
];

/** The journal's column names in the table's order (the id is bound apart). */
export const JOURNAL_COLUMN_NAMES: readonly string[] = JOURNAL_COLUMNS.map((c) => c.name);

/** Codes are compared exactly in queries; SIA codes are upper-case letters, CID codes hex. */
export function storedCode(code: string | null | undefined): string | null {
  return code == null ? null : code.toUpperCase();
}

/** A value as better-sqlite3 binds it. */
export type SqlValue = number | string | Buffer | null;
/** One journal row's parameters, in JOURNAL_COLUMN_NAMES' order. */
export type EventInsertParams = SqlValue[];

/** The fields a wire row carries, in its order. */
export type RowField = keyof NewEvent;
const ROW_COLUMNS = JOURNAL_COLUMNS.filter((c) => c.source === 'row');
/** Field -> its place in the wire row (-1: not carried). */
const ROW_INDEX: Readonly<Record<RowField, number>> = Object.fromEntries(
  JOURNAL_COLUMNS.map((c) => [c.field, ROW_COLUMNS.indexOf(c)]),
) as Record<RowField, number>;

/**
 * One journal row's own values as they cross to the writer thread: a flat array, several times
 * cheaper to clone than an object with named fields (docs/writer.md §Crossing). Read and written
 * only through wireField / setWireField and the builders below.
 */
export type WireRow = Array<NewEvent[RowField] | null>;

/** The frame's values that its rows share (WireFrame, or a NewEvent itself). */
export interface FrameValues {
  readonly receivedAt: number;
  readonly receiverId: number | null;
  readonly receiverKind: NewEvent['receiverKind'];
  readonly transport?: string | null;
  readonly remoteAddress?: string | null;
}

function indexOf(field: RowField): number {
  const i = ROW_INDEX[field];
  if (i < 0) throw new Error(`the wire row carries no ${field}`);
  return i;
}

export function wireField<F extends RowField>(row: WireRow, field: F): NewEvent[F] {
  return row[indexOf(field)] as NewEvent[F];
}

export function setWireField<F extends RowField>(row: WireRow, field: F, value: NewEvent[F]): void {
  row[indexOf(field)] = value;
}

/*
 * The two builders on the ingest's path run once per event, on each side of the thread boundary:
 * they are compiled from the list into straight-line code (an array literal, one property read per
 * column), which runs as fast as the hand-written literals they replace, where a loop over the
 * list reading properties by computed name costs a keyed lookup per column and event. Only the
 * names above go into the code.
 */
function fieldOf(c: JournalColumn, from: string): string {
  return `${from}.${c.field}`;
}

function orNull(c: JournalColumn, read: string): string {
  return c.required && c.fallback === undefined ? read : `(${read} ?? ${c.fallback ?? 'null'})`;
}

/** A NewEvent's wire row (the main thread's side). */
export const wireRow = new Function(
  'e',
  `return [${ROW_COLUMNS.map((c) => orNull(c, fieldOf(c, 'e'))).join(', ')}];`,
) as (e: NewEvent) => WireRow;

function sqlite(c: JournalColumn, read: string): string {
  if (c.kind === 'bool') return `(${read} ? 1 : 0)`;
  if (c.kind === 'code') return `code(${read})`;
  return read;
}

/**
 * The insert parameters of one row of a frame (the writer's side), built straight from the frame's
 * values and the wire row, no NewEvent in between. `raw` is the frame's bytes, shared by its rows;
 * `objectId` what the writer decided.
 */
export const insertParams = new Function(
  'code',
  `return (frame, row, raw, objectId) => [${JOURNAL_COLUMNS.map((c) => {
    if (c.source === 'writer') return 'objectId';
    if (c.kind === 'blob') return 'raw';
    const read = c.source === 'row' ? `row[${indexOf(c.field)}]` : orNull(c, fieldOf(c, 'frame'));
    return sqlite(c, read);
  }).join(', ')}];`,
)(storedCode) as (frame: FrameValues, row: WireRow, raw: Buffer, objectId: number | null) => EventInsertParams;

/** Where a wire row's values are packed for the trip to the writer thread (src/writer/value-pack.ts). */
export interface RowPacker {
  num(value: number | null): void;
  bool(value: boolean): void;
  str(value: string | null): void;
}

export interface RowReader {
  num(): number | null;
  bool(): boolean;
  str(): string | null;
}

/** How a wire row's value of each kind is packed and read back (a blob is never in the row). */
function packerMethod(c: JournalColumn): 'num' | 'bool' | 'str' {
  if (c.kind === 'integer' || c.kind === 'time') return 'num';
  if (c.kind === 'bool') return 'bool';
  return 'str';
}

/** A wire row into the packer, value by value in the row's order (compiled like the builders above). */
export const packRow = new Function(
  'p',
  'row',
  ROW_COLUMNS.map((c) => `p.${packerMethod(c)}(row[${indexOf(c.field)}]);`).join('\n'),
) as (p: RowPacker, row: WireRow) => void;

/** The wire row packRow wrote, read back in the same order. */
export const readRow = new Function(
  'r',
  `return [${ROW_COLUMNS.map((c) => `r.${packerMethod(c)}()`).join(', ')}];`,
) as (r: RowReader) => WireRow;

/** A whole NewEvent's insert parameters (internal events, tests, tools): the same builders. */
export function toInsertParams(event: NewEvent): EventInsertParams {
  const raw = Buffer.from(event.raw.buffer, event.raw.byteOffset, event.raw.byteLength);
  return insertParams(event, wireRow(event), raw, event.objectId ?? null);
}
