/** Files for the migration tests: real SQLite files in a temp dir, and what their schema holds. */
import { join } from 'node:path';
import { openDatabase, type Database } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Runs `run` with an opener of files in a fresh temp dir; closes them all and removes the dir. */
export function withFiles(run: (open: (name: string) => Database) => void): void {
  const dir = tempDir();
  const opened: Database[] = [];
  try {
    run((name) => {
      const db = openDatabase(join(dir.path, name));
      opened.push(db);
      return db;
    });
  } finally {
    for (const db of opened) if (db.open) db.close();
    dir.remove();
  }
}

/** The stored CREATE TABLE text of the journal. */
export function eventsSql(db: Database): string {
  return (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'events'").get() as { sql: string })
    .sql;
}

/** Every schema object but sqlite_sequence, in a stable order: compares a migrated file with a fresh one. */
export function schema(db: Database): unknown[] {
  return db
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name <> 'sqlite_sequence' ORDER BY type, name")
    .all();
}
