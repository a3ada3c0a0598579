/**
 * Versioned SQL migrations tracked by PRAGMA user_version. Each migration runs in its own
 * transaction together with the version bump, so a power cut mid-upgrade leaves the file at
 * the previous version, never half-migrated. Migrations are append-only: a released one is
 * never edited (docs/store.md, migration policy).
 */
import { VigilError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Database } from './database.js';
import { SCHEMA_V1, VIGIL_APPLICATION_ID } from './schema-v1.js';
import { SCHEMA_V2 } from './schema-v2.js';
import { SCHEMA_V3 } from './schema-v3.js';
import { rewriteEventChecks } from './schema-v4.js';
import { SCHEMA_V5 } from './schema-v5.js';
import { dropEventsAutoincrement } from './schema-v6.js';
import { SCHEMA_V7 } from './schema-v7.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: string | ((db: Database) => void);
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', up: SCHEMA_V1 },
  { version: 2, name: 'lean journal indexes', up: SCHEMA_V2 },
  { version: 3, name: 'token epochs and output sequences', up: SCHEMA_V3 },
  { version: 4, name: 'journal CHECKs as OR chains', up: rewriteEventChecks },
  { version: 5, name: 'object sightings table', up: SCHEMA_V5 },
  { version: 6, name: 'journal ids without AUTOINCREMENT', up: dropEventsAutoincrement },
  { version: 7, name: 'device-link keys', up: SCHEMA_V7 },
];

export interface MigrationResult {
  readonly from: number;
  readonly to: number;
}

export function schemaVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}

/** The newest version the given list reaches; versions must run 1, 2, 3... without gaps. */
export function latestVersion(migrations: readonly Migration[] = MIGRATIONS): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new VigilError('INTERNAL', `migration #${i} has version ${m.version}, expected ${i + 1}`);
    }
  });
  return migrations.length;
}

/** Throws STORE_FAILURE when the file is not ours or is newer than this build. */
export function checkCompatible(db: Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const latest = latestVersion(migrations);
  const current = schemaVersion(db);
  if (current > latest) {
    throw new VigilError(
      'STORE_FAILURE',
      `database schema version ${current} is newer than this Vigil build supports (${latest}); ` +
        'refusing to open it: install the newer Vigil again or restore a backup made by this version',
    );
  }
  const appId = Number(db.pragma('application_id', { simple: true }));
  if (appId !== 0 && appId !== VIGIL_APPLICATION_ID) {
    throw new VigilError('STORE_FAILURE', `database application_id ${appId} is not a Vigil store; refusing to open it`);
  }
  if (current === 0 && hasTables(db)) {
    // A non-empty file that never saw migration 1 is someone else's database.
    throw new VigilError('STORE_FAILURE', 'database has tables but no Vigil schema version; refusing to migrate it');
  }
  return current;
}

function hasTables(db: Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1").get() !== undefined;
}

export function migrate(
  db: Database,
  logger: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationResult {
  const from = checkCompatible(db, migrations);
  for (const migration of migrations.slice(from)) {
    const apply = db.transaction(() => {
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    });
    try {
      apply.immediate();
    } catch (err) {
      throw new VigilError(
        'STORE_FAILURE',
        `migration ${migration.version} (${migration.name}) failed: ${err instanceof Error ? err.message : String(err)}`,
        [],
        { cause: err },
      );
    }
    logger.info('migration applied', { version: migration.version, name: migration.name });
  }
  return { from, to: migrations.length };
}
