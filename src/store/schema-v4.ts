/**
 * Migration 4: the journal's CHECK constraints as OR chains instead of IN lists, WITHOUT
 * rebuilding the table.
 *
 * Why: SQLite evaluates `x IN ('a', 'b', ...)` in a CHECK constraint per inserted row at a cost
 * of ~2-4 µs CPU on this machine class; the same set written `x = 'a' OR x = 'b' ...` costs
 * about what no CHECK costs (docs/benchmarks.md §Journal rows; docs/store.md "Migration 4").
 * Every stored event pays it, so only the `events` table is changed: the per-batch writes of
 * `objects` (markSeen: last_seen, remote_address, last_ping) touch no column with such a check,
 * and SQLite skips the CHECKs of an UPDATE that reference no updated column.
 *
 * How: the procedure SQLite documents for table schema changes "that do not affect the on-disk
 * content in any way" (https://www.sqlite.org/lang_altertable.html §"Making Other Kinds Of Table
 * Schema Changes", the simpler procedure): inside the migration's transaction, writable_schema=ON,
 * UPDATE sqlite_schema SET sql, schema_version + 1, writable_schema=OFF, integrity_check, commit.
 * No row is read or written (a journal of millions of rows migrates in the time of the
 * integrity_check, a read), and a power cut before the commit leaves version 3 intact.
 * Each OR chain accepts exactly the values its IN list accepted (same column affinity, same
 * BINARY collation, NULL gives NULL in both forms; test/store/migration-v4.test.ts proves it value
 * by value), so every existing row still satisfies the constraint.
 */
import { VigilError } from '../core/errors.js';
import type { Database } from './database.js';

/** Each IN list of the version-1 `events` table and the OR chain that replaces it. */
export const EVENTS_CHECK_REWRITES: readonly (readonly [inList: string, orChain: string])[] = [
  [
    "receiver_kind IS NULL OR receiver_kind IN ('tcp', 'udp', 'com', 'modem')",
    "receiver_kind IS NULL OR receiver_kind = 'tcp' OR receiver_kind = 'udp' OR receiver_kind = 'com' OR receiver_kind = 'modem'",
  ],
  ['encrypted IN (0, 1)', 'encrypted = 0 OR encrypted = 1'],
  [
    "event_class IN ('alarm', 'restore', 'link_test', 'internal', 'other')",
    "event_class = 'alarm' OR event_class = 'restore' OR event_class = 'link_test' OR event_class = 'internal' OR event_class = 'other'",
  ],
  [
    "qualifier IS NULL OR qualifier IN ('E', 'R', 'P')",
    "qualifier IS NULL OR qualifier = 'E' OR qualifier = 'R' OR qualifier = 'P'",
  ],
];

/**
 * The `events` table from version 4 on, exactly as sqlite_schema holds it (the migration refuses
 * to write anything else). The table itself: docs/store.md "Schema"; migration 1 created it.
 */
export const EVENTS_TABLE_SQL = `CREATE TABLE events (
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  received_at      INTEGER NOT NULL,
  device_time      INTEGER,
  device_time_text TEXT,
  receiver_id      INTEGER,
  receiver_kind    TEXT CHECK (receiver_kind IS NULL OR receiver_kind = 'tcp' OR receiver_kind = 'udp' OR receiver_kind = 'com' OR receiver_kind = 'modem'),
  transport        TEXT,
  remote_address   TEXT,
  object_id        INTEGER,
  account          TEXT NOT NULL,
  dc09_receiver    TEXT,
  dc09_line        TEXT,
  sequence         TEXT,
  protocol         TEXT NOT NULL,
  encrypted        INTEGER NOT NULL DEFAULT 0 CHECK (encrypted = 0 OR encrypted = 1),
  event_class      TEXT NOT NULL CHECK (event_class = 'alarm' OR event_class = 'restore' OR event_class = 'link_test' OR event_class = 'internal' OR event_class = 'other'),
  qualifier        TEXT CHECK (qualifier IS NULL OR qualifier = 'E' OR qualifier = 'R' OR qualifier = 'P'),
  code             TEXT,
  group_no         TEXT,
  zone_no          TEXT,
  text             TEXT,
  flags            INTEGER NOT NULL DEFAULT 0,
  raw              BLOB NOT NULL
)`;

/** Migration 4's step; runs inside the migration's transaction (migrations.ts). */
export function rewriteEventChecks(db: Database): void {
  let sql = storedTableSql(db, 'events');
  for (const [inList, orChain] of EVENTS_CHECK_REWRITES) {
    if (sql.split(inList).length !== 2) {
      throw new VigilError('STORE_FAILURE', `the events table does not hold the CHECK "${inList}" exactly once`);
    }
    sql = sql.replace(inList, orChain);
  }
  if (sql !== EVENTS_TABLE_SQL) {
    throw new VigilError(
      'STORE_FAILURE',
      'the events table differs from the one migration 1 created; not rewriting it',
    );
  }
  replaceTableSql(db, 'events', sql);
}

/** The CREATE TABLE text sqlite_schema holds for `table` (what replaceTableSql rewrites). */
export function storedTableSql(db: Database, table: string): string {
  const row = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) as
    | { sql: string }
    | undefined;
  if (!row) throw new VigilError('STORE_FAILURE', `the ${table} table is missing`);
  return row.sql;
}

/**
 * lang_altertable.html, the simpler procedure, steps 2-8 (the caller holds the transaction of
 * steps 1 and 9); migration 6 uses it too (schema-v6.ts). better-sqlite3 opens every connection
 * with SQLITE_DBCONFIG_DEFENSIVE, which makes sqlite_schema read-only even under writable_schema;
 * unsafeMode lifts it for these few statements only.
 */
export function replaceTableSql(db: Database, table: string, sql: string): void {
  const version = Number(db.pragma('schema_version', { simple: true }));
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    const changed = db
      .prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?")
      .run(sql, table).changes;
    if (changed !== 1) throw new VigilError('STORE_FAILURE', `rewrote ${changed} schema rows for table ${table}`);
    // A new schema_version makes this and every other connection re-read the schema.
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
  // Re-parses the schema (a syntax error fails here, and the transaction rolls back) and checks
  // every row of the table against the new constraints. Only this table: it is all that changed.
  const problems = (db.pragma(`integrity_check(${table})`) as { integrity_check: string }[]).map(
    (r) => r.integrity_check,
  );
  if (problems.length !== 1 || problems[0] !== 'ok') {
    throw new VigilError(
      'STORE_FAILURE',
      `integrity_check after rewriting ${table}: ${problems.slice(0, 5).join('; ')}`,
    );
  }
}
