/**
 * The event journal: every event received (and every internal one), in arrival order. Ids only
 * grow and are never reused, even after retention emptied the table; outputs keep a cursor into
 * them (docs/store.md "Event ids": assigned here from max(id) and the high-water mark that
 * migration 6 keeps, schema-v6.ts).
 *
 * Durability: append() returns only after its transaction committed, and with
 * synchronous=FULL that means after the WAL fsync. A receiver ACKs a device only after
 * append() returned (docs/store.md §Durability).
 */
import { VigilError } from '../core/errors.js';
import type { Database } from './database.js';
import { EVENT_INSERT_PARAMS, insertEventsSql, toStoredEvent } from './event-rows.js';
import { toInsertParams, type EventInsertParams, type EventRow } from './journal-columns.js';
import type { NewEvent, StoredEvent } from '../core/event-row.js';
import { StatementCache, checkLimit, guard, toPage, visibilityClause, type Params, type Statement } from './sql.js';
import type { EventQuery, Page, StoredEventRef } from './types.js';

/** Upper bound of one readAfter() batch (outputs read in bounded steps). */
export const MAX_READ_BATCH = 10_000;

/** Rows one query() examines at most (docs/store.md §Indexes): bounds the time of any filter. */
export const QUERY_SCAN_BUDGET = 50_000;

/**
 * Rows per INSERT statement in appendRows: one multi-row INSERT costs less CPU per row than one
 * statement per row (measured, docs/benchmarks.md §Journal rows).
 */
export const ROWS_PER_INSERT = 16;

/** SQLite's bound-parameter limit (SQLITE_MAX_VARIABLE_NUMBER, 32766 since SQLite 3.32). */
const MAX_BOUND_PARAMS = 32766;

/**
 * The highest id ever assigned: the newest row's, or the high-water mark when deletes took the
 * newest rows (events_high_water, kept by a trigger on every DELETE: schema-v6.ts). NULL when the
 * mark's row is missing, which appendRows refuses rather than guess.
 */
const TOP_ID_SQL =
  'SELECT max(ifnull((SELECT max(id) FROM events), 0), (SELECT last_id FROM events_high_water WHERE singleton = 1)) AS top';

export interface EventJournalOptions {
  /** Rows per INSERT statement (default ROWS_PER_INSERT); 1 = one statement per row. */
  readonly rowsPerInsert?: number;
}

export class EventJournal {
  private readonly db: Database;
  private readonly sql: StatementCache;
  private readonly rowsPerInsert: number;
  /** inserts[n]: the INSERT of n rows, prepared on first use. */
  private readonly inserts: Statement[] = [];
  private appendRowsTx: ((rows: readonly EventInsertParams[]) => number[]) | undefined;

  constructor(db: Database, options: EventJournalOptions = {}) {
    this.db = db;
    this.sql = new StatementCache(db);
    this.rowsPerInsert = options.rowsPerInsert ?? ROWS_PER_INSERT;
  }

  /**
   * Appends the batch in ONE transaction (one fsync for many devices' events: receivers
   * group-commit) and returns the new ids in input order. All or nothing.
   */
  append(events: readonly NewEvent[]): StoredEventRef[] {
    if (events.length === 0) return [];
    const ids = this.appendRows(events.map(toInsertParams));
    return events.map((event, i) => ({ id: ids[i]!, receivedAt: event.receivedAt }));
  }

  /**
   * append() for rows already in EventInsertParams order (the writer thread builds them straight
   * from the wire rows: no NewEvent object in between); returns the ids in input order.
   *
   * The rows go in chunks of rowsPerInsert per INSERT statement, the remainder in one smaller
   * statement (each size prepared once). Ids: read once per batch inside the batch's transaction
   * (its own BEGIN IMMEDIATE, or the caller's: in WAL mode a transaction writes on the newest
   * snapshot or fails with SQLITE_BUSY, and an explicit id already taken fails the PRIMARY KEY,
   * never overwrites), the highest id ever assigned plus 1, 2, 3... in input order, bound
   * explicitly: a batch's ids are consecutive (src/writer/batch-writer.ts sends the first only).
   * An id taken by a batch that rolled back is handed out again, as AUTOINCREMENT did: it was
   * never committed, so no cursor can point past it. test/store/event-journal-ids.test.ts checks
   * the ids against the table; event-journal-writers.test.ts, two connections at once.
   */
  appendRows(rows: readonly EventInsertParams[]): number[] {
    if (rows.length === 0) return [];
    if (!this.appendRowsTx) {
      const chunk = this.rowsPerInsert;
      if (!Number.isInteger(chunk) || chunk < 1 || chunk * EVENT_INSERT_PARAMS + 1 > MAX_BOUND_PARAMS) {
        throw new VigilError('INTERNAL', `rowsPerInsert ${chunk} is not a row count SQLite can bind`);
      }
      const tx = this.db.transaction((batch: readonly EventInsertParams[]) => {
        const ids: number[] = [];
        let next = this.topId() + 1;
        for (let start = 0; start < batch.length; start += chunk) {
          const end = Math.min(start + chunk, batch.length);
          const count = end - start;
          // An array argument binds its elements in order: the rows' values one after the other.
          const result = this.insertOf(count).run(...batch.slice(start, end), { firstId: next });
          if (result.changes !== count || Number(result.lastInsertRowid) !== next + count - 1) {
            throw new VigilError(
              'INTERNAL',
              `an INSERT of ${count} events from id ${next} stored ${result.changes} ending at ${result.lastInsertRowid}`,
            );
          }
          for (let i = 0; i < count; i++) ids.push(next + i);
          next += count;
        }
        return ids;
      });
      this.appendRowsTx = (batch) => tx.immediate(batch);
    }
    const appendRowsTx = this.appendRowsTx;
    return guard('append events', () => appendRowsTx(rows));
  }

  /** TOP_ID_SQL's value; a missing high-water row is STORE_FAILURE (never an id guessed low). */
  private topId(): number {
    const top = (this.sql.get(TOP_ID_SQL).get() as { top: number | null }).top;
    if (top === null)
      throw new VigilError('STORE_FAILURE', 'the journal high-water mark (events_high_water) is missing');
    return top;
  }

  private insertOf(rows: number): Statement {
    let statement = this.inserts[rows];
    if (!statement) {
      statement = this.db.prepare(insertEventsSql(rows));
      this.inserts[rows] = statement;
    }
    return statement;
  }

  get(id: number): StoredEvent | null {
    return guard('read event', () => {
      const row = this.sql.get('SELECT * FROM events WHERE id = ?').get(id) as EventRow | undefined;
      return row ? toStoredEvent(row) : null;
    });
  }

  /**
   * Newest first (highest id), filtered, paged by id cursor (`before`); BOUNDED whatever the
   * filter (docs/store.md §Indexes). Rows are walked newest-first along the primary key and at
   * most `scanBudget` of them are examined per call;
   * the other predicates filter those. When the budget runs out before `limit` matches, the page
   * holds what was found and `nextCursor` is the last id examined, so a page may hold fewer items
   * than `limit` (even none) and still have a next cursor. `from`/`to` become id bounds first.
   * With `after` the walk runs the other way (oldest first from `after`), under the same budget,
   * and `nextCursor` is the `after` of the next page.
   */
  query(filter: EventQuery, scanBudget = QUERY_SCAN_BUDGET): Page<StoredEvent> {
    checkLimit(filter.limit);
    if (filter.receiverIds !== null && filter.receiverIds.length === 0) return { items: [], nextCursor: null };
    return guard('query events', () => {
      const bounds = this.idBounds(filter);
      if (!bounds) return { items: [], nextCursor: null };
      // The scan walks the primary key only (the journal has no other index: docs/store.md
      // §Indexes); every other predicate filters the rows it examined.
      const inner: string[] = [];
      const outer: string[] = [];
      const params: Params = { limit: filter.limit + 1, budget: scanBudget };
      if (filter.receiverId !== undefined) {
        outer.push('receiver_id = @receiverId');
        params.receiverId = filter.receiverId;
      }
      if (filter.code !== undefined) {
        outer.push('code = @code');
        params.code = filter.code.toUpperCase();
      }
      const low = filter.after === undefined ? bounds.low : Math.max(bounds.low ?? 0, filter.after + 1);
      if (low !== null) {
        inner.push('id >= @low');
        params.low = low;
      }
      if (bounds.high !== null) {
        inner.push('id < @high');
        params.high = bounds.high;
      }
      visibilityClause('receiver_id', filter.receiverIds, outer, params);
      if (filter.account !== undefined) {
        outer.push('account = @account');
        params.account = filter.account;
      }
      // The exact predicates stay: the id bounds assume received_at never decreases along ids.
      if (filter.from !== undefined) {
        outer.push('received_at >= @from');
        params.from = filter.from;
      }
      if (filter.to !== undefined) {
        outer.push('received_at < @to');
        params.to = filter.to;
      }
      const innerWhere = inner.length ? `WHERE ${inner.join(' AND ')}` : '';
      const order = filter.after === undefined ? 'DESC' : 'ASC';
      const scan = `SELECT * FROM events ${innerWhere} ORDER BY id ${order} LIMIT @budget`;
      const outerWhere = outer.length ? `WHERE ${outer.join(' AND ')}` : '';
      const rows = this.sql
        .get(`SELECT * FROM (${scan}) ${outerWhere} ORDER BY id ${order} LIMIT @limit`)
        .all(params) as EventRow[];
      const page = toPage(rows.map(toStoredEvent), filter.limit);
      if (page.nextCursor !== null) return page;
      // A short page: either the index range is exhausted, or the budget ran out first. The row
      // after the last one examined tells which (one index-only seek).
      const edge = this.sql
        .get(`SELECT id FROM events ${innerWhere} ORDER BY id ${order} LIMIT 2 OFFSET @skip`)
        .all(pick(params, inner, scanBudget - 1)) as Array<{ id: number }>;
      return { items: page.items, nextCursor: edge.length === 2 ? edge[0]!.id : null };
    });
  }

  /**
   * The id range [low, high) a query may look at: `before`, and `from`/`to` turned into ids
   * by binary search over the primary key (firstIdAtOrAfter). Null when nothing can match.
   */
  private idBounds(filter: EventQuery): { low: number | null; high: number | null } | null {
    let high = filter.before ?? null;
    let low: number | null = null;
    if (filter.from !== undefined) {
      low = this.firstIdAtOrAfter(filter.from);
      if (low === null) return null;
    }
    if (filter.to !== undefined) {
      const end = this.firstIdAtOrAfter(filter.to);
      if (end !== null && (high === null || end < high)) high = end;
    }
    if (low !== null && high !== null && low >= high) return null;
    return { low, high };
  }

  /**
   * The first id received at or after `at`: a binary search over the primary key (O(log n)
   * seeks, no index on received_at). The single writer stamps received_at in commit order, so
   * it does not decrease along ids; rows a clock step put out of order can fall outside the
   * bound (docs/store.md §Indexes). Ids may have gaps (retention deletes the oldest).
   */
  private firstIdAtOrAfter(at: number): number | null {
    const next = this.sql.get('SELECT id, received_at FROM events WHERE id >= ? ORDER BY id LIMIT 1');
    const last = this.sql.get('SELECT id FROM events ORDER BY id DESC LIMIT 1').get() as { id: number } | undefined;
    if (!last) return null;
    let lo = 0;
    let hi = last.id;
    let found: number | null = null;
    // Each probe halves [lo, hi]; 64 probes cover any id a 64-bit rowid can hold.
    for (let probes = 0; lo <= hi && probes < 64; probes++) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const row = next.get(mid) as { id: number; received_at: number } | undefined;
      if (!row || row.id > hi) {
        hi = mid - 1;
      } else if (row.received_at >= at) {
        found = row.id;
        hi = mid - 1;
      } else {
        lo = row.id + 1;
      }
    }
    return found;
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
   * The highest id ever assigned (0 for a new journal): the newest row's or the high-water mark,
   * so it does not go back when retention empties the table: a new output may start here.
   */
  maxId(): number {
    return guard('read max event id', () => this.topId());
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
      // Bound by id first: when nothing is old the scan below is empty instead of a full pass.
      const end = this.firstIdAtOrAfter(cutoff) ?? Number.MAX_SAFE_INTEGER;
      const result = this.sql
        .get(
          `DELETE FROM events WHERE id IN (
             SELECT id FROM events WHERE id < @end AND id <= @keepAfterId AND received_at < @cutoff
             ORDER BY id LIMIT @batchLimit)`,
        )
        .run({ cutoff, end, keepAfterId, batchLimit });
      return result.changes;
    });
  }
}

/** The parameters the scan (inner) clauses name, plus the offset of the last row examined. */
function pick(params: Params, inner: readonly string[], skip: number): Params {
  const out: Params = { skip };
  for (const clause of inner) {
    const name = clause.slice(clause.indexOf('@') + 1);
    out[name] = params[name];
  }
  return out;
}
