/**
 * Following the event journal for one long-lived client: the page's live tail (GET /events/live)
 * and the API's event stream (GET /api/events/stream) both run one EventFollower per client.
 *
 * The journal is the buffer. The follower keeps a position (the last id it examined) and reads
 * forward from it in bounded pages, oldest first, through forwardFilter (the caller's filters and
 * visible receivers applied by the store, never here), so it delivers every matching event
 * exactly once and in id order whether the events are old (a resumed client's backlog) or new.
 * Ids are assigned in commit order by the single journal writer (src/store/event-journal.ts), so
 * a read after an id never misses a lower id committed later.
 *
 * It reads when the ingest announces stored events (coalesced into one read per burst) and on a
 * timer of `recheckMs`, and re-checks the client's authority (src/services/live-authority.ts)
 * before every page: a revoked client ends with 'revoked' and gets nothing stored after that.
 * At most one page is in memory per client; `send` applies the client's back-pressure, and a
 * send that does not complete within `stallMs` ends the follower with 'stalled' (the client is
 * too slow; it resumes from its last id).
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ApiEventRow, ApiStorePort } from './ports.js';
import { forwardFilter, type EventQuery } from './events-service.js';
import { RECHECK_MS } from './live-authority.js';

export type FollowEnd = 'closed' | 'revoked' | 'stalled';

export const FOLLOW_PAGE = 200;
/** Stored events are announced in bursts; one journal read per burst. */
export const COALESCE_MS = 25;
/** How long one write may wait for a client that does not read (the slow-client bound). */
export const STALL_MS = 30_000;

export interface EventFollowerDeps {
  readonly store: Pick<ApiStorePort, 'events'>;
  /** The ingest's "events were journaled" signal (id of each); without it the timer alone reads. */
  readonly onEventStored?: (listener: (id: number) => void) => () => void;
  readonly logger: Logger;
}

export interface EventFollowerOptions {
  /** The parsed filters (account, receiver, code, from, to); a page cursor or limit is ignored. */
  readonly query: EventQuery;
  readonly visibleReceivers: readonly number[] | null;
  /** The last id the client holds: delivery starts above it. */
  readonly after: number;
  readonly authority: { holds(): Promise<boolean> };
  /** Writes one event to the client; resolves when the client's transport took it. */
  readonly send: (event: ApiEventRow) => Promise<void>;
  readonly pageSize?: number;
  readonly stallMs?: number;
  readonly recheckMs?: number;
}

export class EventFollower {
  readonly ended: Promise<FollowEnd>;
  private finish: (reason: FollowEnd) => void = () => undefined;
  private position: number;
  /** The highest id the ingest announced: committed, so a completed read covers it. */
  private announced = 0;
  private done = false;
  private draining = false;
  private again = false;
  private coalesce: NodeJS.Timeout | null = null;
  private recheck: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: EventFollowerDeps,
    private readonly options: EventFollowerOptions,
  ) {
    this.position = options.after;
    this.ended = new Promise((resolve) => (this.finish = resolve));
  }

  /** The last id examined (delivered or filtered out). */
  get lastExamined(): number {
    return this.position;
  }

  start(): void {
    this.unsubscribe = this.deps.onEventStored?.((id) => this.announce(id)) ?? null;
    this.recheck = setInterval(() => void this.drain(), this.options.recheckMs ?? RECHECK_MS);
    void this.drain();
  }

  /** Ends the follower (idempotent); `ended` resolves with the first reason given. */
  stop(reason: FollowEnd = 'closed'): void {
    if (this.done) return;
    this.done = true;
    this.unsubscribe?.();
    if (this.recheck) clearInterval(this.recheck);
    if (this.coalesce) clearTimeout(this.coalesce);
    this.finish(reason);
  }

  private announce(id: number): void {
    if (id > this.announced) this.announced = id;
    this.coalesce ??= setTimeout(() => {
      this.coalesce = null;
      void this.drain();
    }, COALESCE_MS);
  }

  /** One drain at a time; a wake-up during a drain runs it once more afterwards. */
  private async drain(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    try {
      do {
        this.again = false;
        await this.readForward();
      } while (this.again && !this.done);
    } catch (err) {
      // A store that fails now may answer on the next wake-up; the position has not moved.
      this.deps.logger.warn('event follower read failed', { error: describeError(err) });
    } finally {
      this.draining = false;
    }
  }

  /** Pages forward until the journal has nothing more for this client (or it ended). */
  private async readForward(): Promise<void> {
    const { query, visibleReceivers, pageSize = FOLLOW_PAGE } = this.options;
    while (!this.done) {
      if (!(await this.options.authority.holds())) return this.stop('revoked');
      const covered = this.announced;
      const page = this.deps.store.events.query(forwardFilter(query, visibleReceivers, this.position, pageSize));
      for (const event of page.items) {
        if (!(await this.deliver(event))) return;
        this.position = event.id;
      }
      if (page.nextCursor === null) {
        // The read saw every id committed before it, the announced ones included.
        this.position = Math.max(this.position, covered);
        return;
      }
      this.position = Math.max(this.position, page.nextCursor);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async deliver(event: ApiEventRow): Promise<boolean> {
    if (this.done) return false;
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<'stalled'>(
      (resolve) => (timer = setTimeout(() => resolve('stalled'), this.options.stallMs ?? STALL_MS)),
    );
    const outcome = await Promise.race([this.options.send(event).then(() => 'sent' as const), stalled]);
    clearTimeout(timer);
    if (outcome === 'stalled') this.stop('stalled');
    return !this.done;
  }
}
