/**
 * One installation at a time migrates the mirror (docs/mysql-sync.md §Schema versions). On Galera
 * every DDL is a cluster-wide total-order event; the same ALTERs sent at once through several nodes
 * (a fleet's boxes updated in one wave, several gateways meeting a fresh mirror) can stall the
 * cluster's writes behind a metadata-lock wait. GET_LOCK() is refused on a Galera node
 * (MDEV-30473), so the lock is a row of `vigil_sync`, which the primary key (one server) or
 * certification (a cluster) gives to one writer: `migration_lock` = "<holder> <taken at, ms>".
 * A holder that died leaves a row older than `staleMs`, which the next taker replaces; a holder whose
 * connection broke mid-migration replaces its own row at once when it connects again.
 */
import { VigilError } from '../../core/errors.js';
import type { RemoteDb } from './remote-db.js';

export const MIGRATION_LOCK_KEY = 'migration_lock';

export interface MigrationLockOptions {
  /** This installation's id: who holds the lock, as `vigil_sync` shows it. */
  readonly holder: string;
  /** How long to wait for another installation's migration before giving up for this connect. */
  readonly waitMs: number;
  /** A lock older than this belongs to a holder that died mid-migration. */
  readonly staleMs: number;
  readonly pollMs: number;
}

export const MIGRATION_LOCK_DEFAULTS: Omit<MigrationLockOptions, 'holder'> = {
  waitMs: 60_000,
  staleMs: 15 * 60_000,
  pollMs: 500,
};

/** ER_DUP_ENTRY (one server) and ER_LOCK_DEADLOCK (a certification conflict on Galera). */
const LOST_RACE = new Set([1062, 1213]);

interface HeldLock {
  readonly value: string;
  readonly holder: string;
  readonly at: number;
}

async function readLock(db: RemoteDb): Promise<HeldLock | null> {
  const rows = (await db.query('SELECT value FROM vigil_sync WHERE name = ?', [MIGRATION_LOCK_KEY])) as Array<{
    value: string;
  }>;
  const value = rows[0]?.value;
  if (value === undefined) return null;
  const space = value.lastIndexOf(' ');
  return { value, holder: value.slice(0, space), at: Number(value.slice(space + 1)) || 0 };
}

/**
 * True when this call took the lock: a new row, or a row replaced that is stale or this
 * installation's own (left by a connection of its own that broke mid-migration: an installation
 * runs one sync, so its own row is never a live migration).
 */
async function tryTake(db: RemoteDb, token: string, holder: string, staleMs: number): Promise<boolean> {
  try {
    await db.query('INSERT INTO vigil_sync (name, value) VALUES (?, ?)', [MIGRATION_LOCK_KEY, token]);
    return true;
  } catch (err) {
    // A duplicate key (one server) or a certification conflict (Galera) means someone holds it;
    // a connection that broke makes the read below fail, and that error is the answer.
    const held = await readLock(db);
    if (held === null) {
      // The holder released it between the two statements, or a race was lost: try again.
      if (LOST_RACE.has((err as { errno?: number }).errno ?? 0)) return false;
      throw err;
    }
    if (held.holder !== holder && Date.now() - held.at < staleMs) return false;
    const result = (await db.query('UPDATE vigil_sync SET value = ? WHERE name = ? AND value = ?', [
      token,
      MIGRATION_LOCK_KEY,
      held.value,
    ])) as { affectedRows?: number };
    return result.affectedRows === 1;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `body` holding the mirror's migration lock; waits (bounded) while another installation holds
 * it. Gives up with CONFLICT naming the holder, which the sync reports and retries after its backoff.
 */
export async function withMigrationLock<T>(
  db: RemoteDb,
  options: MigrationLockOptions,
  body: () => Promise<T>,
): Promise<T> {
  const token = `${options.holder} ${Date.now()}`;
  const deadline = Date.now() + options.waitMs;
  while (!(await tryTake(db, token, options.holder, options.staleMs))) {
    if (Date.now() >= deadline) {
      const held = await readLock(db);
      throw new VigilError(
        'CONFLICT',
        `installation ${held?.holder ?? '(unknown)'} is migrating the MySQL mirror; trying again later`,
      );
    }
    await sleep(options.pollMs);
  }
  try {
    return await body();
  } finally {
    await db
      .query('DELETE FROM vigil_sync WHERE name = ? AND value = ?', [MIGRATION_LOCK_KEY, token])
      .catch(() => undefined); // a broken connection leaves the row to go stale
  }
}
