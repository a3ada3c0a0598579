/**
 * Opens the local SQLite database with the durability settings the product depends on.
 * Every thread that uses the file opens its own connection here, with the same pragmas; only the
 * writer thread writes (docs/store.md §One writer), the others set query_only.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { VigilError, describeError } from '../core/errors.js';

export type Database = BetterSqlite3.Database;

export interface OpenOptions {
  /**
   * Open without write access (SQLITE_OPEN_READONLY). Used by inspection tools and by tests
   * that need writes to fail for real: file modes do not stop root, this does.
   */
  readonly readonly?: boolean;
}

/** How long a statement waits for a lock held by another connection (a backup, the sqlite3 shell). */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * After a checkpoint the WAL file is truncated back to this size, so one burst of events does
 * not leave a large file on the SD card for good.
 */
export const JOURNAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** Page size of a newly created file. */
export const PAGE_SIZE_BYTES = 1024;

export function openDatabase(path: string, options: OpenOptions = {}): Database {
  const readonly = options.readonly === true;
  let db: Database | undefined;
  try {
    if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new BetterSqlite3(path, { readonly, fileMustExist: readonly, timeout: BUSY_TIMEOUT_MS });
    applyPragmas(db, path, readonly);
    return db;
  } catch (err) {
    db?.close();
    if (err instanceof VigilError) throw err;
    throw new VigilError('STORE_FAILURE', `cannot open database ${path}: ${describeError(err)}`, [], { cause: err });
  }
}

function applyPragmas(db: Database, path: string, readonly: boolean): void {
  // WAL: readers never block the single writer, and a commit appends to one file instead of
  // rewriting pages in place (fewer fsyncs, kinder to SD cards).
  if (!readonly) {
    // 1 KiB pages for a new file (an existing file keeps its size): a small commit appends whole
    // pages to the WAL, and 1 KiB pages write ~half the bytes of 4 KiB per small commit
    // (docs/benchmarks.md §Journal rows). Must precede WAL mode, which fixes the page size.
    db.pragma(`page_size = ${PAGE_SIZE_BYTES}`);
    const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
    if (mode !== 'wal' && path !== ':memory:') {
      throw new VigilError('STORE_FAILURE', `database ${path} refused WAL mode (journal_mode=${mode})`);
    }
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  }
  // FULL: the WAL is fsynced at every commit. An event ACKed to a device must survive a power
  // cut; with NORMAL the last commits before the cut may roll back, and the device, having
  // had its ACK, will never resend them.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
}

export type CheckpointMode = 'PASSIVE' | 'FULL' | 'RESTART' | 'TRUNCATE';
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * A cheap real write: a meta row inside BEGIN IMMEDIATE … ROLLBACK, on the connection that writes
 * (the writer thread's, or a Store's without a writer). The failure, or null.
 */
export function probeWrite(db: Database, at: number, busyTimeoutMs: number): string | null {
  if (db.inTransaction) return null;
  const busyTimeout = Number(db.pragma('busy_timeout', { simple: true }));
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    db.exec('BEGIN IMMEDIATE');
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('write_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ).run(String(at));
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

/** Copies the WAL into the main file; TRUNCATE also shrinks the WAL to zero bytes. */
export function walCheckpoint(db: Database, mode: CheckpointMode): CheckpointResult {
  const [result] = db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[];
  return result ?? { busy: 0, log: 0, checkpointed: 0 };
}
