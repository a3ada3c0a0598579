/**
 * Versioned SQL migrations tracked by PRAGMA user_version. Each migration runs in its own
 * transaction together with the version bump, so a power cut mid-upgrade leaves the file at
 * the previous version, never half-migrated. Migrations are append-only: a released one is
 * never edited (docs/store.md, migration policy).
 *
 * A file stays readable by older builds as long as every migration it had is additive (docs/store.md
 * "Data across versions"): after a rollback to the previous slot, the older Vigil must start on the
 * data the newer one wrote. Each migration states `readableFrom`: the oldest schema version whose code
 * can still use a file this migration has run on. The file keeps the highest such floor in `meta`
 * (READABLE_FROM_KEY); a build that knows fewer migrations opens the file iff it knows the floor.
 */
import { VigilError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Database } from './database.js';
import { MetaRepo } from './meta-repo.js';
import { SCHEMA_V1, VIGIL_APPLICATION_ID } from './schema-v1.js';
import { SCHEMA_V2 } from './schema-v2.js';
import { SCHEMA_V3 } from './schema-v3.js';
import { rewriteEventChecks } from './schema-v4.js';
import { SCHEMA_V5 } from './schema-v5.js';
import { dropEventsAutoincrement } from './schema-v6.js';
import { SCHEMA_V7 } from './schema-v7.js';
import { SCHEMA_V8 } from './schema-v8.js';
import { SCHEMA_V9 } from './schema-v9.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly up: string | ((db: Database) => void);
  /**
   * The oldest schema version whose code can use the file after this migration: the previous floor for
   * an additive migration (new tables, new nullable or defaulted columns that older code ignores); the
   * migration's own version for one that changes what older code reads or writes.
   */
  readonly readableFrom: number;
}

/** The meta key holding the file's floor (the highest readableFrom of the migrations it had). */
export const READABLE_FROM_KEY = 'schema_readable_from';

export const MIGRATIONS: readonly Migration[] = [
  // Migrations 1 to 6 predate the rule: builds before migration 6 refuse any newer file anyway.
  { version: 1, name: 'initial schema', up: SCHEMA_V1, readableFrom: 1 },
  { version: 2, name: 'lean journal indexes', up: SCHEMA_V2, readableFrom: 2 },
  { version: 3, name: 'token epochs and output sequences', up: SCHEMA_V3, readableFrom: 3 },
  { version: 4, name: 'journal CHECKs as OR chains', up: rewriteEventChecks, readableFrom: 4 },
  { version: 5, name: 'object sightings table', up: SCHEMA_V5, readableFrom: 5 },
  { version: 6, name: 'journal ids without AUTOINCREMENT', up: dropEventsAutoincrement, readableFrom: 6 },
  { version: 7, name: 'revoked tokens', up: SCHEMA_V7, readableFrom: 6 },
  { version: 8, name: 'device-link keys', up: SCHEMA_V8, readableFrom: 6 },
  { version: 9, name: 'objects DC-09 quirks', up: SCHEMA_V9, readableFrom: 6 },
];

/** The file's floor: what its migrations recorded, or its own version when it has no record (older files). */
export function readableFrom(db: Database): number {
  const current = schemaVersion(db);
  if (current === 0) return 0;
  let stored: string | null;
  try {
    stored = new MetaRepo(db).get(READABLE_FROM_KEY);
  } catch {
    return current;
  }
  const floor = Number(stored);
  return Number.isSafeInteger(floor) && floor > 0 && floor <= current ? floor : current;
}

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
  if (current > latest && readableFrom(db) > latest) {
    throw new VigilError(
      'STORE_FAILURE',
      `database schema version ${current} is newer than this Vigil build supports (${latest}) and needs a build ` +
        `that knows version ${readableFrom(db)}; refusing to open it: install the newer Vigil again or restore a backup made by this version`,
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

export function migrate(db: Database, logger: Logger, migrations: readonly Migration[] = MIGRATIONS): MigrationResult {
  const from = checkCompatible(db, migrations);
  if (from > migrations.length) {
    // A newer build's file whose migrations were all additive: used as it is, never migrated down.
    logger.warn('database written by a newer Vigil: its additions are ignored', {
      schema_version: from,
      this_build: migrations.length,
      readable_from: readableFrom(db),
    });
    return { from, to: from };
  }
  for (const migration of migrations.slice(from)) {
    const apply = db.transaction(() => {
      const floor = migration.version === 1 ? 0 : readableFrom(db);
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      new MetaRepo(db).set(READABLE_FROM_KEY, String(Math.max(floor, migration.readableFrom)));
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
