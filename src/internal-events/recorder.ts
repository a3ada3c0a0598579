/**
 * Journals Vigil's own events with the codes configured in `internal_events[]`, through the same
 * path as device events (the ingest), so outputs forward them like any other event.
 *
 * Rules (docs/internal-events.md):
 * - a type with no entry in `internal_events` is not journaled (raise() answers null);
 * - events are journaled in the order they were raised (one at a time, a promise chain);
 * - an event that cannot be journaled (store trouble) is held in memory, bounded, and journaled
 *   with its original time before the next one: `store_trouble` is written ahead of
 *   `store_restored` once the store works again.
 */
import { describeError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { InternalEventSettings, InternalEventType } from '../settings/schema.js';
import type { NewEvent } from '../core/event-row.js';
import { buildInternalEvent, findInternalEvent, type EventSubject } from './catalog.js';

/** Where internal events are journaled: the ingest's group commit (or the journal in tests). */
export interface InternalEventJournal {
  /** Resolves with the journal ids, in input order, after the commit. */
  append(events: readonly NewEvent[]): Promise<readonly number[]>;
}

export interface RaiseOptions {
  readonly subject?: EventSubject | null;
  readonly detail?: string | null;
  /** ms epoch; defaults to the clock's now. */
  readonly at?: number;
}

/** What other components call to report an internal event. Never throws. */
export type RaiseInternalEvent = (type: InternalEventType, options?: RaiseOptions) => Promise<number | null>;

export interface InternalEventRecorderDeps {
  readonly journal: InternalEventJournal;
  /** Read at every raise, so a settings change applies at once. */
  readonly entries: () => readonly InternalEventSettings[];
  readonly clock: Clock;
  readonly logger: Logger;
  /** Events held while the journal fails; the oldest are dropped beyond this. */
  readonly maxPending?: number;
}

export const DEFAULT_MAX_PENDING = 256;

export class InternalEventRecorder {
  private readonly deps: InternalEventRecorderDeps;
  private readonly maxPending: number;
  private readonly pending: NewEvent[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private dropped = 0;

  constructor(deps: InternalEventRecorderDeps) {
    this.deps = deps;
    this.maxPending = deps.maxPending ?? DEFAULT_MAX_PENDING;
  }

  /** Bound form for passing around as a RaiseInternalEvent. */
  readonly raise: RaiseInternalEvent = (type, options = {}) => {
    const entry = findInternalEvent(this.deps.entries(), type);
    if (!entry) {
      this.deps.logger.debug('internal event not configured, not journaled', { type });
      return Promise.resolve(null);
    }
    // Built now, so the event carries the moment it happened even if journaling waits.
    const event = buildInternalEvent(entry, {
      type,
      at: options.at ?? this.deps.clock.now(),
      subject: options.subject ?? null,
      detail: options.detail ?? null,
    });
    return this.serialise(async () => {
      this.hold(event);
      const written = await this.flushPending();
      if (written === null) return null;
      this.deps.logger.info('internal event journaled', { type, id: written, object_id: event.objectId ?? undefined });
      return written;
    });
  };

  /** Journals what is held (e.g. when the store is back); resolves once tried. */
  retryPending(): Promise<void> {
    return this.serialise(async () => {
      await this.flushPending();
    });
  }

  /** Events waiting for the journal. */
  pendingCount(): number {
    return this.pending.length;
  }

  /** Waits until every raise so far has been journaled or held. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private hold(event: NewEvent): void {
    this.pending.push(event);
    if (this.pending.length > this.maxPending) {
      this.pending.shift();
      this.dropped += 1;
      this.deps.logger.warn('internal events dropped while the journal fails', { dropped: this.dropped });
    }
  }

  /** Appends everything held in one batch; the id of the last one, or null when it failed. */
  private async flushPending(): Promise<number | null> {
    if (this.pending.length === 0) return null;
    const batch = this.pending.slice();
    try {
      const ids = await this.deps.journal.append(batch);
      this.pending.splice(0, batch.length);
      return ids[ids.length - 1] ?? null;
    } catch (err) {
      this.deps.logger.error('internal event not journaled yet, held for retry', {
        pending: this.pending.length,
        error: describeError(err),
      });
      return null;
    }
  }

  private serialise<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }
}
