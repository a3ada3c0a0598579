/**
 * The connection log of each device: one row per connection, the newest
 * `database.device_session_log_count` (1..25) kept per device.
 */
import type { Database } from './database.js';
import { StatementCache, checkLimit, guard } from './sql.js';
import type { ObjectSession } from './types.js';

interface SessionRow {
  id: number;
  object_id: number;
  connected_at: number;
  disconnected_at: number | null;
  remote_address: string | null;
  events: number;
  bytes_in: number;
  bytes_out: number;
}

export interface SessionCounters {
  readonly events: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export class SessionsRepo {
  private readonly sql: StatementCache;

  constructor(db: Database) {
    this.sql = new StatementCache(db);
  }

  /** Starts a session row; returns its id. */
  open(objectId: number, at: number, remoteAddress: string | null): number {
    return guard('open session', () =>
      Number(
        this.sql
          .get('INSERT INTO object_sessions (object_id, connected_at, remote_address) VALUES (?, ?, ?)')
          .run(objectId, at, remoteAddress).lastInsertRowid,
      ),
    );
  }

  /** Records the running figures without closing the session (so a crash loses little). */
  update(id: number, counters: SessionCounters): void {
    guard('update session', () =>
      this.sql
        .get('UPDATE object_sessions SET events = ?, bytes_in = ?, bytes_out = ? WHERE id = ?')
        .run(counters.events, counters.bytesIn, counters.bytesOut, id),
    );
  }

  close(id: number, at: number, counters: SessionCounters): void {
    guard('close session', () =>
      this.sql
        .get('UPDATE object_sessions SET disconnected_at = ?, events = ?, bytes_in = ?, bytes_out = ? WHERE id = ?')
        .run(at, counters.events, counters.bytesIn, counters.bytesOut, id),
    );
  }

  /**
   * Sessions still open from a previous run (the process died with connections up) are
   * closed at `at`, the start of this run: the best bound we have.
   */
  closeDangling(at: number): number {
    return guard(
      'close dangling sessions',
      () =>
        this.sql.get('UPDATE object_sessions SET disconnected_at = ? WHERE disconnected_at IS NULL').run(at).changes,
    );
  }

  /** Newest first. */
  recent(objectId: number, limit: number): ObjectSession[] {
    checkLimit(limit);
    return guard('list sessions', () =>
      (
        this.sql
          .get('SELECT * FROM object_sessions WHERE object_id = ? ORDER BY id DESC LIMIT ?')
          .all(objectId, limit) as SessionRow[]
      ).map(toSession),
    );
  }

  /** Keeps the newest `keep` sessions of the object (device_session_log_count). */
  trim(objectId: number, keep: number): number {
    return guard(
      'trim sessions',
      () =>
        this.sql
          .get(
            `DELETE FROM object_sessions WHERE object_id = @objectId AND id NOT IN (
             SELECT id FROM object_sessions WHERE object_id = @objectId ORDER BY id DESC LIMIT @keep)`,
          )
          .run({ objectId, keep }).changes,
    );
  }
}

function toSession(row: SessionRow): ObjectSession {
  return {
    id: row.id,
    objectId: row.object_id,
    connectedAt: row.connected_at,
    disconnectedAt: row.disconnected_at,
    remoteAddress: row.remote_address,
    events: row.events,
    bytesIn: row.bytes_in,
    bytesOut: row.bytes_out,
  };
}
