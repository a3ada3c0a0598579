/**
 * SQLite records as rows of the MySQL mirror (remote-schema.ts). Pure mapping: times become UTC
 * DATETIME(3) values, booleans 0/1, and text is cut to its column's 255 characters so that one
 * odd value can never stall replication with a "data too long" error forever (docs/mysql-sync.md).
 */
import { JOURNAL_COLUMN_NAMES } from '../journal-columns.js';
import { JOURNAL_COLUMNS, notNull, type JournalColumn, type StoredEvent } from '../../core/event-row.js';
import type { ObjectRecord, OidOverride } from '../types.js';

const MAX_TEXT = 255;

function cut(value: string | null): string | null {
  return value === null || value.length <= MAX_TEXT ? value : value.slice(0, MAX_TEXT);
}

/** DATETIME(3) covers years 1000..9999; a device clock outside that is stored as NULL. */
const MIN_DATETIME_MS = Date.UTC(1000, 0, 1);
const MAX_DATETIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

function time(ms: number | null): Date | null {
  return ms === null || !Number.isFinite(ms) || ms < MIN_DATETIME_MS || ms > MAX_DATETIME_MS ? null : new Date(ms);
}

function requiredTime(ms: number): Date {
  return time(ms) ?? new Date(0);
}

export const OBJECT_COLUMNS = [
  'id',
  'account',
  'uid',
  'hw_id',
  'firmware',
  'main_object_id',
  'receiver_id',
  'receiver_kind',
  'transport',
  'remote_address',
  'first_seen',
  'last_seen',
  'last_ping',
  'connection_state',
  'supervision_state',
  'link_period_s',
  'sms',
  'restore_count',
] as const;

export function objectRow(o: ObjectRecord): unknown[] {
  return [
    o.id,
    cut(o.account) ?? '',
    cut(o.uid),
    cut(o.hwId),
    cut(o.firmware),
    o.mainObjectId,
    o.receiverId,
    o.receiverKind,
    cut(o.transport),
    cut(o.remoteAddress),
    requiredTime(o.firstSeen),
    requiredTime(o.lastSeen),
    time(o.lastPing),
    o.connectionState,
    cut(o.supervisionState),
    o.linkPeriodS,
    o.sms ? 1 : 0,
    o.restoreCount,
  ];
}

/** The mirror's journal: the id, then the journal's own columns in their order (journal-columns.ts). */
export const EVENT_COLUMNS: readonly string[] = ['id', ...JOURNAL_COLUMN_NAMES];

/** A journal value as the mirror stores it, by its column's kind (journal-columns.ts). */
function mirrored(kind: JournalColumn['kind'], required: boolean, value: unknown): unknown {
  switch (kind) {
    case 'time':
      return required ? requiredTime(value as number) : time((value as number | null) ?? null);
    case 'text':
    case 'code': {
      const text = cut((value as string | null) ?? null);
      return required ? (text ?? '') : text;
    }
    case 'bool':
      return value ? 1 : 0;
    default:
      return value ?? null;
  }
}

export function eventRow(e: StoredEvent): unknown[] {
  const row: unknown[] = [e.id];
  for (const c of JOURNAL_COLUMNS) row.push(mirrored(c.kind, notNull(c), e[c.field]));
  return row;
}

export const OVERRIDE_COLUMNS = ['match_kind', 'match_value', 'related_oid', 'override_oid', 'updated_at'] as const;

/** As in SQLite, '' in related_oid stands for "the main device" (a key column cannot be NULL). */
export function overrideRow(o: OidOverride): unknown[] {
  return [o.matchKind, cut(o.matchValue), cut(o.relatedOid ?? '') ?? '', cut(o.overrideOid), time(o.updatedAt)];
}

export function overrideKey(o: OidOverride): string {
  return JSON.stringify([o.matchKind, o.matchValue, o.relatedOid ?? '']);
}

/**
 * `INSERT ... VALUES ? ON DUPLICATE KEY UPDATE` for a bulk of rows: replaying rows that already
 * arrived changes nothing but the columns listed in `update` (all non-key columns for mutable
 * tables; none for the immutable journal, where `id = id` keeps the stored row).
 */
export function upsertSql(table: string, columns: readonly string[], update: readonly string[]): string {
  const assignments = update.length > 0 ? update.map((c) => `${c} = VALUES(${c})`).join(', ') : 'id = id';
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ? ON DUPLICATE KEY UPDATE ${assignments}`;
}
