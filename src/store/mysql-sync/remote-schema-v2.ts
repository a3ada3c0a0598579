/**
 * Mirror schema version 2: one mirror, many installations (docs/mysql-sync.md §Installations).
 * Every mirrored row carries `installation` (the instance id Vigil keeps in SQLite meta) and the
 * keys become (installation, local key), so any number of gateways write into one schema without
 * collisions. `installations` shows each box; the `signals` view folds dual-path copies
 * (remote-signals.ts).
 *
 * A version-1 mirror belonged to the one installation named in `vigil_sync.instance_id`: its rows
 * are stamped with that id IN PLACE (nothing is re-sent), in bounded chunks so that a Galera
 * write set stays small. Every step checks what is already there first (MySQL commits DDL
 * implicitly and has no `ADD COLUMN IF NOT EXISTS`), so a migration cut half-way runs again.
 */
import type { RemoteDb } from './remote-db.js';
import { SIGNALS_VIEW } from './remote-signals.js';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** Rows stamped per statement during the in-place upgrade (bounded Galera write sets). */
const STAMP_CHUNK = 5000;

export const CREATE_INSTALLATIONS = `CREATE TABLE IF NOT EXISTS installations (
  installation VARCHAR(36) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL DEFAULT '',
  version VARCHAR(64) NOT NULL DEFAULT '',
  server VARCHAR(255) NULL,
  first_sync_at DATETIME(3) NULL,
  last_sync_at DATETIME(3) NULL,
  lag_events BIGINT NULL,
  last_error VARCHAR(1024) NULL,
  last_error_at DATETIME(3) NULL,
  retired_at DATETIME(3) NULL
) ${TABLE_OPTIONS}`;

/** The mirrored tables and their keys after the installation column. */
const KEYED_TABLES: ReadonlyArray<{ table: string; key: readonly string[] }> = [
  { table: 'objects', key: ['id'] },
  { table: 'events', key: ['id'] },
  { table: 'oid_overrides', key: ['match_kind', 'match_value', 'related_oid'] },
];

export async function hasColumn(db: RemoteDb, table: string, column: string): Promise<boolean> {
  const rows = (await db.query(
    'SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
    [table, column],
  )) as unknown[];
  return rows.length > 0;
}

async function primaryKey(db: RemoteDb, table: string): Promise<string[]> {
  const rows = (await db.query(
    `SELECT COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
      WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION`,
    [table],
  )) as Array<{ name: string }>;
  return rows.map((r) => r.name);
}

async function hasIndex(db: RemoteDb, table: string, index: string): Promise<boolean> {
  const rows = (await db.query(
    'SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ?',
    [table, index],
  )) as unknown[];
  return rows.length > 0;
}

async function previousOwner(db: RemoteDb): Promise<string | null> {
  const rows = (await db.query("SELECT value FROM vigil_sync WHERE name = 'instance_id'")) as Array<{ value: string }>;
  return rows[0]?.value ?? null;
}

/** Stamps the version-1 rows (installation = '') with their owner, a chunk per statement. */
async function stampRows(db: RemoteDb, table: string, owner: string): Promise<void> {
  for (;;) {
    const result = (await db.query(
      `UPDATE ${table} SET installation = ? WHERE installation = '' LIMIT ${STAMP_CHUNK}`,
      [owner],
    )) as { affectedRows?: number };
    if ((result.affectedRows ?? 0) < STAMP_CHUNK) return;
  }
}

export async function migrateToMultiInstallation(db: RemoteDb): Promise<void> {
  await db.query(CREATE_INSTALLATIONS);
  const owner = await previousOwner(db);
  for (const { table, key } of KEYED_TABLES) {
    if (!(await hasColumn(db, table, 'installation'))) {
      await db.query(`ALTER TABLE ${table} ADD COLUMN installation VARCHAR(36) NOT NULL DEFAULT '' FIRST`);
    }
    if (owner !== null) await stampRows(db, table, owner);
    const wanted = ['installation', ...key];
    if ((await primaryKey(db, table)).join(',') !== wanted.join(',')) {
      await db.query(`ALTER TABLE ${table} DROP PRIMARY KEY, ADD PRIMARY KEY (${wanted.join(', ')})`);
    }
  }
  // The fold of dual-path copies looks signals up by these columns (remote-signals.ts).
  if (!(await hasIndex(db, 'events', 'events_by_signal'))) {
    await db.query('ALTER TABLE events ADD KEY events_by_signal (account, sequence, device_time)');
  }
  if (owner !== null) {
    // The owner keeps its history as an installation; it fills in its name at its next connect.
    await db.query('INSERT IGNORE INTO installations (installation) VALUES (?)', [owner]);
  }
  await db.query(SIGNALS_VIEW);
}
