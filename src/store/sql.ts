/**
 * Small helpers shared by the repositories: a lazy prepared-statement cache, the mapping of
 * SQLite failures to VigilError codes, and the bits of SQL every newest-first listing needs.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { VigilError, isVigilError } from '../core/errors.js';
import type { Database } from './database.js';

export type Statement = BetterSqlite3.Statement;
export type Params = Record<string, unknown>;

/**
 * Prepares each distinct SQL text once, on first use. Dynamic listings build their SQL from a
 * fixed set of optional clauses, so the cache stays bounded by the number of filter shapes.
 */
export class StatementCache {
  private readonly db: Database;
  private readonly cache = new Map<string, Statement>();

  constructor(db: Database) {
    this.db = db;
  }

  get(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
    }
    return statement;
  }
}

interface SqliteLikeError {
  code?: unknown;
  message?: unknown;
}

/** Wraps a SQLite failure: constraint violations are CONFLICT, everything else STORE_FAILURE. */
export function storeError(err: unknown, what: string): VigilError {
  if (isVigilError(err)) return err;
  const code = typeof (err as SqliteLikeError)?.code === 'string' ? String((err as SqliteLikeError).code) : '';
  const message = err instanceof Error ? err.message : String(err);
  if (code.startsWith('SQLITE_CONSTRAINT')) {
    return new VigilError('CONFLICT', `${what}: ${message}`, [code], { cause: err });
  }
  return new VigilError('STORE_FAILURE', `${what}: ${message}`, code ? [code] : [], { cause: err });
}

/** Runs `fn`, turning whatever SQLite throws into a VigilError naming the operation. */
export function guard<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw storeError(err, what);
  }
}

export const MAX_PAGE = 1000;

/** Listing limits are the caller's to validate (it answers 400); a bad one here is a bug. */
export function checkLimit(limit: number, max = MAX_PAGE): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new VigilError('INTERNAL', `limit must be an integer in 1..${max}, got ${String(limit)}`);
  }
}

/**
 * The receiver-visibility clause: null means every receiver; a list becomes a json_each
 * membership test so the statement text does not depend on how many receivers there are.
 */
export function visibilityClause(
  column: string,
  receiverIds: readonly number[] | null,
  where: string[],
  params: Params,
): void {
  if (receiverIds === null) return;
  where.push(`${column} IN (SELECT value FROM json_each(@visible))`);
  params.visible = JSON.stringify(receiverIds);
}

/** Cuts a limit+1 fetch into one page and the cursor that continues it. */
export function toPage<T extends { id: number }>(rows: T[], limit: number): { items: T[]; nextCursor: number | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: items[items.length - 1].id };
}

/** Upper-case hex as stored for UIDs and OIDs; surrounding whitespace is not part of an id. */
export function normalizeHex(value: string): string {
  return value.trim().toUpperCase();
}
