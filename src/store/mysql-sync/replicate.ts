/**
 * What is replicated and how (docs/mysql-sync.md §Replication):
 * - events: append-only, so by cursor. Batches after `mysql_sync.events_cursor` (meta) are
 *   upserted keyed by (installation, SQLite id), and only then is the cursor moved. A crash or outage between
 *   the two resends the batch, which lands on the same rows: each event arrives exactly once.
 * - objects and OID overrides: by comparison (table-mirror.ts).
 */
import type { ObjectRecord, OidOverride } from '../types.js';
import type { StoredEvent } from '../../core/event-row.js';
import type { RemoteDb } from './remote-db.js';
import {
  EVENT_COLUMNS,
  OBJECT_COLUMNS,
  OVERRIDE_COLUMNS,
  eventRow,
  objectRow,
  overrideKey,
  overrideRow,
  upsertSql,
} from './remote-rows.js';
import type { MirroredTable } from './table-mirror.js';

/** meta key of the id of the last event the mirror has. */
export const EVENTS_CURSOR_KEY = 'mysql_sync.events_cursor';
/** meta key of this installation's id (the `installation` of every mirrored row, remote-schema.ts claimInstallation). */
export { INSTANCE_ID_KEY } from '../meta-repo.js';

export interface MetaPort {
  get(key: string): string | null;
}

/**
 * The slice of the store the sync uses: its reads are synchronous and bounded; its writes (the
 * cursor, the installation id) are commands to the store's one writer, awaited.
 */
export interface SyncStore {
  readonly events: { readAfter(lastId: number, limit: number): StoredEvent[]; maxId(): number };
  readonly objects: { all(): ObjectRecord[] };
  readonly overrides: { list(): OidOverride[] };
  readonly meta: MetaPort;
  readonly write: { readonly meta: { set(key: string, value: string): Promise<void> } };
}

export function readEventsCursor(meta: MetaPort): number {
  const value = Number(meta.get(EVENTS_CURSOR_KEY) ?? '0');
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/**
 * Retention must not delete events the mirror does not have yet (docs/retention.md): the
 * retention job passes this as a floor while database.enabled.
 */
export function syncedEventFloor(meta: MetaPort): number {
  return readEventsCursor(meta);
}

/** Every mirrored row starts with its installation (remote-schema-v2.ts). */
const withInstallation = (columns: readonly string[]): string[] => ['installation', ...columns];

// Events never change once journaled: a replayed row keeps the stored one (`id = id`).
const EVENTS_UPSERT = upsertSql('events', withInstallation(EVENT_COLUMNS), []);

export interface EventBatchResult {
  readonly sent: number;
  readonly cursor: number;
  /** A full batch was sent: more may be waiting. */
  readonly more: boolean;
}

/** Sends the next batch of events after the cursor and moves the cursor past it. */
export async function replicateEventBatch(
  db: RemoteDb,
  store: SyncStore,
  batchSize: number,
  installation: string,
): Promise<EventBatchResult> {
  const cursor = readEventsCursor(store.meta);
  const batch = store.events.readAfter(cursor, batchSize);
  if (batch.length === 0) return { sent: 0, cursor, more: false };
  await db.query(EVENTS_UPSERT, [batch.map((e) => [installation, ...eventRow(e)])]);
  const last = batch[batch.length - 1]!.id;
  await store.write.meta.set(EVENTS_CURSOR_KEY, String(last));
  return { sent: batch.length, cursor: last, more: batch.length === batchSize };
}

export function objectsTable(installation: string): MirroredTable<ObjectRecord> {
  return {
    name: 'objects',
    key: (o) => String(o.id),
    row: (o) => [installation, ...objectRow(o)],
    upsertSql: upsertSql(
      'objects',
      withInstallation(OBJECT_COLUMNS),
      OBJECT_COLUMNS.filter((c) => c !== 'id'),
    ),
    remoteKeysSql: 'SELECT id FROM objects WHERE installation = ?',
    remoteKey: (r) => String(Number(r.id)),
    deleteSql: 'DELETE FROM objects WHERE installation = ? AND id IN (?)',
    deleteParam: (key) => Number(key),
    scope: [installation],
  };
}

export function overridesTable(installation: string): MirroredTable<OidOverride> {
  return {
    name: 'oid_overrides',
    key: overrideKey,
    row: (o) => [installation, ...overrideRow(o)],
    upsertSql: upsertSql('oid_overrides', withInstallation(OVERRIDE_COLUMNS), ['override_oid', 'updated_at']),
    remoteKeysSql: 'SELECT match_kind, match_value, related_oid FROM oid_overrides WHERE installation = ?',
    remoteKey: (r) => JSON.stringify([r.match_kind, r.match_value, r.related_oid]),
    deleteSql: 'DELETE FROM oid_overrides WHERE installation = ? AND (match_kind, match_value, related_oid) IN (?)',
    deleteParam: (key) => JSON.parse(key) as unknown[],
    scope: [installation],
  };
}
