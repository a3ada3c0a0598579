/**
 * Migration 6: the journal's ids without AUTOINCREMENT, and a high-water mark that keeps them from
 * ever being reused (docs/store.md "Event ids").
 *
 * Why: with AUTOINCREMENT every INSERT into `events` also updates the `events` row of
 * `sqlite_sequence`, so every journal commit wrote two pages to the WAL: the events leaf and the
 * sqlite_sequence page. One event per commit is the common case (a device waits for its ACK, and
 * the ACK waits for the fsync): measured 6,924 B per one-row commit with AUTOINCREMENT against
 * 5,811 without (1 KiB pages; docs/benchmarks.md §Journal rows), one WAL frame less per commit.
 *
 * The guarantee AUTOINCREMENT gave must hold exactly as before: an event id is never reused and ids
 * only grow, even after retention emptied the table, because output cursors and the MySQL mirror's
 * cursor point into the journal, and a reused id below a cursor would be an event never forwarded.
 * Without AUTOINCREMENT SQLite picks max(rowid) + 1 (https://www.sqlite.org/autoinc.html), which
 * goes back when the newest rows are deleted. So:
 *   - `events_high_water` (one row) holds the highest id deleted while it was the newest row;
 *   - the trigger `events_keep_high_water` records it in the deleting statement's own transaction,
 *     for ANY delete (retention, a sqlite3 shell): a DELETE cannot take the newest id away;
 *   - the journal assigns ids itself, from max(max(id), high-water) + 1, read inside the batch's
 *     write transaction (EventJournal.appendRows); the one writer makes them consecutive.
 * The high-water row changes only when a delete removes the newest row (retention emptying the
 * table, nothing else): an ordinary commit writes the events leaf alone.
 *
 * How, for an existing file: the AUTOINCREMENT keyword is dropped from the stored CREATE TABLE text
 * in place, with the procedure SQLite documents for schema changes "that do not affect the on-disk
 * content in any way" (lang_altertable.html, "Making Other Kinds Of Table Schema Changes"; the same
 * as migration 4, schema-v4.ts): AUTOINCREMENT changes how a new rowid is chosen, not the b-tree,
 * and an INTEGER PRIMARY KEY keeps its values through VACUUM either way. The file's
 * sqlite_sequence value for `events` (the highest id AUTOINCREMENT ever handed out, which may be
 * above max(id) when retention deleted the newest rows) becomes the first high-water mark, and its
 * row is deleted in the same transaction: one place holds the mark from then on.
 */
import { VigilError } from '../core/errors.js';
import type { Database } from './database.js';
import { EVENTS_TABLE_SQL as EVENTS_TABLE_SQL_V4, replaceTableSql, storedTableSql } from './schema-v4.js';

const AUTOINCREMENT_ID = 'id               INTEGER PRIMARY KEY AUTOINCREMENT,';
const PLAIN_ID = 'id               INTEGER PRIMARY KEY,';

/** The `events` table from version 6 on, exactly as sqlite_schema holds it. */
export const EVENTS_TABLE_SQL = EVENTS_TABLE_SQL_V4.replace(AUTOINCREMENT_ID, PLAIN_ID);

/**
 * The high-water mark and the trigger that keeps it. `singleton` pins the table to one row.
 * The trigger's WHEN is a seek per deleted row (is any row newer?); it writes only when the
 * deleted row was the newest. Deletes in any order end with the mark at or above every deleted id
 * that no remaining row exceeds.
 */
const HIGH_WATER_SQL = `
CREATE TABLE events_high_water (
  singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
  last_id   INTEGER NOT NULL CHECK (last_id >= 0)
);
CREATE TRIGGER events_keep_high_water AFTER DELETE ON events
WHEN NOT EXISTS (SELECT 1 FROM events WHERE id > OLD.id)
BEGIN
  UPDATE events_high_water SET last_id = OLD.id WHERE last_id < OLD.id;
END;
`;

/** Migration 6's step; runs inside the migration's transaction (migrations.ts). */
export function dropEventsAutoincrement(db: Database): void {
  const sql = storedTableSql(db, 'events');
  if (sql !== EVENTS_TABLE_SQL_V4 || sql.split(AUTOINCREMENT_ID).length !== 2) {
    throw new VigilError('STORE_FAILURE', 'the events table differs from the one migration 4 left; not rewriting it');
  }
  // Read before the rewrite: the highest id AUTOINCREMENT ever assigned (none: 0).
  const sequence = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as
    | { seq: number }
    | undefined;
  const legacy = sequence?.seq ?? 0;
  replaceTableSql(db, 'events', EVENTS_TABLE_SQL);
  db.exec(HIGH_WATER_SQL);
  db.prepare('INSERT INTO events_high_water (singleton, last_id) VALUES (1, ?)').run(legacy);
  db.prepare("DELETE FROM sqlite_sequence WHERE name = 'events'").run();
}
