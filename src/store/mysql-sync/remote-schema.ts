/**
 * The schema of the MySQL/MariaDB mirror, created and migrated by Vigil (docs/mysql-sync.md
 * §Schema). Versions live in the mirror's own `vigil_sync` table. MySQL commits DDL implicitly,
 * so a migration cannot be atomic: every statement is written to be safe to run again
 * (`CREATE TABLE IF NOT EXISTS`, ...), and the version row is written after the last one, so a
 * migration cut half-way simply runs again at the next connect.
 *
 * Keys are (installation, SQLite id), so a replayed batch lands on the same rows (INSERT ... ON
 * DUPLICATE KEY UPDATE): replication is idempotent, a resend can never duplicate, and any number
 * of installations share one mirror (remote-schema-v2.ts).
 */
import { VigilError } from '../../core/errors.js';
import { MIGRATION_LOCK_DEFAULTS, withMigrationLock, type MigrationLockOptions } from './migration-lock.js';
import type { RemoteDb } from './remote-db.js';
import { migrateToMultiInstallation } from './remote-schema-v2.js';
import { addUpdateColumns } from './remote-schema-v3.js';

export interface RemoteMigration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
  /** Steps that must look at the mirror first; each checks what is done before doing it. */
  readonly run?: (db: RemoteDb) => Promise<void>;
}

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin';

/** Append-only, like the SQLite migrations: a released migration is never edited. */
export const REMOTE_MIGRATIONS: readonly RemoteMigration[] = [
  {
    version: 1,
    name: 'objects, events, oid_overrides',
    statements: [
      `CREATE TABLE IF NOT EXISTS objects (
        id BIGINT NOT NULL PRIMARY KEY,
        account VARCHAR(255) NOT NULL,
        uid VARCHAR(255) NULL,
        hw_id VARCHAR(255) NULL,
        firmware VARCHAR(255) NULL,
        main_object_id BIGINT NULL,
        receiver_id INT NOT NULL,
        receiver_kind VARCHAR(8) NOT NULL,
        transport VARCHAR(255) NULL,
        remote_address VARCHAR(255) NULL,
        first_seen DATETIME(3) NOT NULL,
        last_seen DATETIME(3) NOT NULL,
        last_ping DATETIME(3) NULL,
        connection_state VARCHAR(8) NOT NULL,
        supervision_state VARCHAR(255) NULL,
        link_period_s INT NULL,
        sms TINYINT(1) NOT NULL,
        restore_count INT NOT NULL,
        KEY objects_by_account (account),
        KEY objects_by_uid (uid),
        KEY objects_by_main (main_object_id)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS events (
        id BIGINT NOT NULL PRIMARY KEY,
        received_at DATETIME(3) NOT NULL,
        device_time DATETIME(3) NULL,
        device_time_text VARCHAR(255) NULL,
        receiver_id INT NULL,
        receiver_kind VARCHAR(8) NULL,
        transport VARCHAR(255) NULL,
        remote_address VARCHAR(255) NULL,
        object_id BIGINT NULL,
        account VARCHAR(255) NOT NULL,
        dc09_receiver VARCHAR(255) NULL,
        dc09_line VARCHAR(255) NULL,
        sequence VARCHAR(255) NULL,
        protocol VARCHAR(255) NOT NULL,
        encrypted TINYINT(1) NOT NULL,
        event_class VARCHAR(16) NOT NULL,
        qualifier CHAR(1) NULL,
        code VARCHAR(255) NULL,
        group_no VARCHAR(255) NULL,
        zone_no VARCHAR(255) NULL,
        text MEDIUMTEXT NULL,
        flags INT NOT NULL,
        raw MEDIUMBLOB NOT NULL,
        KEY events_by_received_at (received_at),
        KEY events_by_object (object_id, id),
        KEY events_by_account (account, id)
      ) ${TABLE_OPTIONS}`,
      `CREATE TABLE IF NOT EXISTS oid_overrides (
        match_kind VARCHAR(3) NOT NULL,
        match_value VARCHAR(255) NOT NULL,
        related_oid VARCHAR(255) NOT NULL DEFAULT '',
        override_oid VARCHAR(255) NOT NULL,
        updated_at DATETIME(3) NULL,
        PRIMARY KEY (match_kind, match_value, related_oid)
      ) ${TABLE_OPTIONS}`,
    ],
  },
  {
    version: 2,
    name: 'installation on every row, installations, signals',
    statements: [],
    run: migrateToMultiInstallation,
  },
  {
    version: 3,
    name: "each installation's system update in installations",
    statements: [],
    run: addUpdateColumns,
  },
];

export const REMOTE_SCHEMA_VERSION = REMOTE_MIGRATIONS.length;

const CREATE_SYNC_TABLE = `CREATE TABLE IF NOT EXISTS vigil_sync (
  name VARCHAR(64) NOT NULL PRIMARY KEY,
  value VARCHAR(255) NOT NULL
) ${TABLE_OPTIONS}`;

async function readSyncValue(db: RemoteDb, name: string): Promise<string | null> {
  const rows = (await db.query('SELECT value FROM vigil_sync WHERE name = ?', [name])) as Array<{ value: string }>;
  return rows[0]?.value ?? null;
}

async function writeSyncValue(db: RemoteDb, name: string, value: string): Promise<void> {
  await db.query('INSERT INTO vigil_sync (name, value) VALUES (?, ?) ON DUPLICATE KEY UPDATE value = VALUES(value)', [
    name,
    value,
  ]);
}

async function syncTableExists(db: RemoteDb): Promise<boolean> {
  const rows = (await db.query(
    "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'vigil_sync'",
  )) as unknown[];
  return rows.length > 0;
}

async function readSchemaVersion(db: RemoteDb, supported: number): Promise<number> {
  const found = Number((await readSyncValue(db, 'schema_version')) ?? '0');
  if (!Number.isInteger(found) || found > supported) {
    throw new VigilError(
      'CONFLICT',
      `the MySQL mirror has schema version ${found}, newer than this Vigil build supports (${supported}); not writing to it`,
    );
  }
  return found;
}

/**
 * Brings the mirror to REMOTE_SCHEMA_VERSION; returns the version it found. A mirror that is current
 * costs two reads and no DDL; one that is behind is migrated under the migration lock
 * (migration-lock.ts), by one installation at a time, and re-read once the lock is held.
 */
export async function migrateRemote(
  db: RemoteDb,
  migrations: readonly RemoteMigration[] = REMOTE_MIGRATIONS,
  lock: Partial<MigrationLockOptions> = {},
): Promise<number> {
  // Galera replicates even a CREATE TABLE IF NOT EXISTS that finds the table: only a fresh mirror sends it.
  if (!(await syncTableExists(db))) await db.query(CREATE_SYNC_TABLE);
  const found = await readSchemaVersion(db, migrations.length);
  if (found === migrations.length) return found;
  await withMigrationLock(db, { holder: 'vigil', ...MIGRATION_LOCK_DEFAULTS, ...lock }, async () => {
    const now = await readSchemaVersion(db, migrations.length);
    for (const migration of migrations.slice(now)) {
      for (const statement of migration.statements) await db.query(statement);
      await migration.run?.(db);
      await writeSyncValue(db, 'schema_version', String(migration.version));
    }
  });
  return found;
}

export interface InstallationClaim {
  readonly installation: string;
  readonly name: string;
  readonly version: string;
  /** host:port of the server in use. */
  readonly server: string;
  /** The last failure this gateway met since its previous claim, or null. */
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
}

/**
 * Registers (or refreshes) this installation in `installations`. An installation the operator
 * retired (`retired_at` set, docs/mysql-sync.md §Installations) is refused (CONFLICT): its rows stay
 * as the archive and nothing more is written under its id.
 */
export async function claimInstallation(db: RemoteDb, claim: InstallationClaim): Promise<void> {
  await db.query(
    `INSERT INTO installations (installation, name, version, server, last_error, last_error_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE name = VALUES(name), version = VALUES(version), server = VALUES(server),
         last_error = COALESCE(VALUES(last_error), last_error),
         last_error_at = COALESCE(VALUES(last_error_at), last_error_at)`,
    [claim.installation, claim.name, claim.version, claim.server, claim.lastError, claim.lastErrorAt],
  );
  const rows = (await db.query('SELECT retired_at FROM installations WHERE installation = ?', [
    claim.installation,
  ])) as Array<{ retired_at: unknown }>;
  if (rows[0]?.retired_at != null) {
    throw new VigilError(
      'CONFLICT',
      `this installation (${claim.installation}) was retired in the MySQL mirror; not writing to it`,
    );
  }
}

/** After a successful cycle: when, how far behind, and through which server. */
export async function recordSync(
  db: RemoteDb,
  installation: string,
  at: Date,
  lagEvents: number | null,
  server: string,
): Promise<void> {
  await db.query(
    `UPDATE installations SET last_sync_at = ?, first_sync_at = COALESCE(first_sync_at, ?), lag_events = ?, server = ?
      WHERE installation = ?`,
    [at, at, lagEvents, server, installation],
  );
}
