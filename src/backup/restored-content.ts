/**
 * What a restored store may hold (docs/backup.md "Restoring", docs/security.md "Backups"): integrity and
 * versions are not enough, since a backup is a file anyone with its passphrase can craft. A store is
 * staged only when
 *   - its schema is exactly the one this Vigil makes at the store's version (every table, index,
 *     trigger and view, by name and SQL): a trigger that deletes one panel's events as they are
 *     written would otherwise make the box ACK alarms and drop them. A store of a newer Vigil (its
 *     migrations all additive) may have more tables and indexes, never another trigger or view;
 *   - its settings and users pass the rules every start applies (schema and cross-field rules, and
 *     the user limit of PUT /api/settings): settings the next start would refuse would leave a box
 *     that exits at every start and that nobody can reach to fix.
 * Runs where checkStore runs (a worker thread, store-task.ts).
 */
import { VigilError } from '../core/errors.js';
import { silentLogger } from '../core/logger.js';
import { DEFAULT_MAX_USERS } from '../settings/schema.js';
import { validateStoredSettings } from '../settings/validate.js';
import { type Database, openDatabase } from '../store/database.js';
import { MIGRATIONS, migrate } from '../store/migrations.js';
import { SettingsRepo } from '../store/settings-repo.js';

interface SchemaRow {
  readonly type: string;
  readonly name: string;
  readonly tbl_name: string;
  readonly sql: string | null;
}

const SCHEMA_SQL = "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name";

function refused(what: string): VigilError {
  return new VigilError('BAD_BACKUP', `the backup's store is not one Vigil makes (${what})`);
}

function rows(db: Database): Map<string, SchemaRow> {
  return new Map((db.prepare(SCHEMA_SQL).all() as SchemaRow[]).map((r) => [`${r.type} ${r.name}`, r]));
}

/** The schema a fresh store has at `version` (or at the newest this build knows). */
function expectedSchema(version: number): Map<string, SchemaRow> {
  const db = openDatabase(':memory:');
  try {
    migrate(db, silentLogger, MIGRATIONS.slice(0, Math.min(version, MIGRATIONS.length)));
    return rows(db);
  } finally {
    db.close();
  }
}

export function checkSchema(db: Database, version: number): void {
  const expected = expectedSchema(version);
  const actual = rows(db);
  const newer = version > MIGRATIONS.length;
  for (const [key, row] of actual) {
    const ours = expected.get(key);
    // A newer Vigil's additive migrations add tables, columns and indexes: never a trigger or a view.
    if (newer && ours === undefined && (row.type === 'table' || row.type === 'index')) continue;
    if (ours === undefined) throw refused(`a ${row.type} this Vigil does not make: ${row.name}`);
    if (!newer || row.type === 'trigger' || row.type === 'view') {
      if (ours.sql !== row.sql || ours.tbl_name !== row.tbl_name) throw refused(`its ${row.type} ${row.name} differs`);
    }
  }
  for (const [key, row] of expected) if (!actual.has(key)) throw refused(`its ${row.type} ${row.name} is missing`);
}

export function checkSettings(db: Database): void {
  const raw = new SettingsRepo(db, { now: () => Date.now() }).load();
  if (raw === null) return;
  const result = validateStoredSettings(raw, { maxUsers: DEFAULT_MAX_USERS });
  if (!result.ok) {
    const shown = result.errors.slice(0, 5).join('; ');
    throw new VigilError(
      'BAD_BACKUP',
      `the backup's settings would not start a gateway: ${shown}${result.errors.length > 5 ? '; ...' : ''}`,
    );
  }
}
