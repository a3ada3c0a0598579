/**
 * The event journal: every event received (and every internal one), in arrival order. Ids
 * come from an AUTOINCREMENT sequence that only grows; outputs keep a cursor into it.
 *
 * Durability: append() returns only after its transaction committed, and with
 * synchronous=FULL that means after the WAL fsync. A receiver ACKs a device only after
 * append() returned (docs/store.md §Durability).
 */
import type { Database } from './database.js';
import { INSERT_EVENT_SQL, toInsertParams, toStoredEvent, type EventRow } from './event-rows.js';
import { StatementCache, checkLimit, guard, toPage, visibilityClause, type Params } from './sql.js';
import type { EventQuery, NewEvent, Page, StoredEvent, StoredEventRef } from './types.js';

/** Upper bound of one readAfter() batch (outputs read in bounded steps). */
export const MAX_READ_BATCH = 10_000;

export class EventJournal {
  private readonly db: Database;
  private readonly sql: StatementCache;
  private appendTx: ((events: readonly NewEvent[]) => StoredEventRef[]) | undefined;

  constructor(db: Database) {
    this.db = db;
    this.sql = new StatementCache(db);
  }

  /**
   * Appends the batch in ONE transaction (one fsync for many devices' events: receivers
   * group-commit) and returns the new ids in input order. All or nothing.
   */
  append(events: readonly NewEvent[]): StoredEventRef[] {
    if (events.length === 0) return [];
    if (!this.appendTx) {
      const insert = this.sql.get(INSERT_EVENT_SQL);
      const tx = this.db.transaction((batch: readonly NewEvent[]) =>
        batch.map((event) => ({
          id: Number(insert.run(toInsertParams(event)).lastInsertRowid),
          receivedAt: event.receivedAt,
        })),
      );
      this.appendTx = (batch) => tx.immediate(batch);
    }
    const appendTx = this.appendTx;
    return guard('append events', () => appendTx(events));
  }

  get(id: number): StoredEvent | null {
    return guard('read event', () => {
      const row = this.sql.get('SELECT * FROM events WHERE id = ?').get(id) as EventRow | undefined;
      return row ? toStoredEvent(row) : null;
    });
  }

  /** Newest first (highest id), filtered, paged by id cursor (`before`). */
  query(filter: EventQuery): Page<StoredEvent> {
    checkLimit(filter.limit);
    if (filter.receiverIds !== null && filter.receiverIds.length === 0) return { items: [], nextCursor: null };
    const where: string[] = [];
    const params: Params = { limit: filter.limit + 1 };
    visibilityClause('receiver_id', filter.receiverIds, where, params);
    const add = (clause: string, name: string, value: unknown): void => {
      where.push(clause);
      params[name] = value;
    };
    if (filter.receiverId !== undefined) add('receiver_id = @receiverId', 'receiverId', filter.receiverId);
    if (filter.account !== undefined) add('account = @account', 'account', filter.account);
    if (filter.code !== undefined) add('code = @code', 'code', filter.code.toUpperCase());
    if (filter.from !== undefined) add('received_at >= @from', 'from', filter.from);
    if (filter.to !== undefined) add('received_at < @to', 'to', filter.to);
    if (filter.before !== undefined) add('id < @before', 'before', filter.before);
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    return guard('query events', () => {
      const rows = this.sql.get(`SELECT * FROM events ${clause} ORDER BY id DESC LIMIT @limit`).all(params) as EventRow[];
      return toPage(rows.map(toStoredEvent), filter.limit);
    });
  }

  /**
   * Events after an output's cursor, oldest first. Ignorable startup events are included:
   * the output skips them by flag and still advances its cursor past them.
   */
  readAfter(lastId: number, limit: number): StoredEvent[] {
    checkLimit(limit, MAX_READ_BATCH);
    return guard('read events after cursor', () =>
      (this.sql.get('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?').all(lastId, limit) as EventRow[]).map(
        toStoredEvent,
      ),
    );
  }

  /**
   * The highest id ever assigned (0 for a new journal). Read from the AUTOINCREMENT sequence,
   * so it does not go back when retention empties the table: a new output may start here.
   */
  maxId(): number {
    return guard('read max event id', () => {
      const row = this.sql.get("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as
        | { seq: number }
        | undefined;
      return row?.seq ?? 0;
    });
  }

  /** How many events lie after a cursor: an output's backlog, for health metrics. */
  countAfter(lastId: number): number {
    return guard('count events', () => {
      const row = this.sql.get('SELECT count(*) AS n FROM events WHERE id > ?').get(lastId) as { n: number };
      return row.n;
    });
  }

  /**
   * Retention (database.remove_events_age): deletes up to `batchLimit` of the oldest events
   * received before `cutoff`, and never one with an id above `keepAfterId` (pass the lowest
   * cursor of the configured outputs, so an output that was down longer than the retention
   * age still gets its backlog). Returns how many were deleted; the caller repeats, yielding
   * to the event loop between calls, until it returns less than `batchLimit`.
   */
  deleteOlderThan(cutoff: number, options: { keepAfterId?: number; batchLimit?: number } = {}): number {
    const batchLimit = options.batchLimit ?? 5000;
    checkLimit(batchLimit, MAX_READ_BATCH);
    const keepAfterId = options.keepAfterId ?? Number.MAX_SAFE_INTEGER;
    return guard('delete old events', () => {
      const result = this.sql
        .get(
          `DELETE FROM events WHERE id IN (
             SELECT id FROM events WHERE received_at < @cutoff AND id <= @keepAfterId ORDER BY id LIMIT @batchLimit)`,
        )
        .run({ cutoff, keepAfterId, batchLimit });
      return result.changes;
    });
  }
}
