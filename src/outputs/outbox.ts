/**
 * The durable outbox of one output: the event journal read through the output's own persisted cursor
 * (store `output_cursors`). Delivery is in journal order and at least once:
 *   - the cursor only passes an event once it was ACKed, or deliberately skipped (filtered out, not encodable, or
 *     refused by a peer that ACKs everything else), so a restart, a crash or an outage of hours loses nothing;
 *   - the head event stays the head until it is done, so nothing is reordered;
 *   - the cursor is written in batches (every `flushEvery` events or when the owner calls flush(), on a timer, when
 *     it fails and when it stops): one fsync per batch instead of per event. A crash re-sends at most the events
 *     ACKed since the last flush (docs/outputs.md §Outbox). Each write is a command to the store's one writer
 *     (docs/store.md §One writer), awaited; one at a time, so the stored cursor only moves forward.
 * Reads are bounded batches, so a backlog of hours never sits in memory and never blocks the event loop for long.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { StoredEvent } from '../core/event-row.js';
import type { AccountResolver } from './account-resolver.js';
import type { EventFilter } from './event-filter.js';

export interface OutboxJournal {
  readAfter(lastId: number, limit: number): StoredEvent[];
  countAfter(lastId: number): number;
  maxId(): number;
}

/** The cursor reads, on the caller's connection (`store.cursors`). */
export interface OutboxCursors {
  get(outputId: number): number;
  sequence(outputId: number): number;
  all(): { outputId: number }[];
}

/** The cursor writes: commands to the store's one writer (`store.write.cursors`), each awaited. */
export interface OutboxCursorWrites {
  advance(outputId: number, lastEventId: number, sequence?: number | null): Promise<void>;
  reset(outputId: number, lastEventId: number): Promise<void>;
}

export interface OutboxOptions {
  readonly outputId: number;
  readonly journal: OutboxJournal;
  readonly cursors: OutboxCursors;
  readonly cursorWrites: OutboxCursorWrites;
  readonly filter: EventFilter;
  readonly resolveAccount: AccountResolver;
  /** Rows per journal read (default 256). */
  readonly batchSize?: number;
  /** Persist the cursor at least every this many passed events (default 1000). */
  readonly flushEvery?: number;
}

/** An event the output should send now, with the account it goes out under. */
export interface OutgoingEvent {
  readonly event: StoredEvent;
  readonly account: string;
}

export interface SkippedEvent {
  readonly id: number;
  readonly reason: string;
}

export class Outbox {
  readonly outputId: number;
  private readonly options: OutboxOptions;
  private readonly batchSize: number;
  private readonly flushEvery: number;
  private queue: StoredEvent[] = [];
  private queueIndex = 0;
  /** Highest id read from the journal (the next read starts after it). */
  private readPosition = 0;
  /** Every event up to this id is done (in memory). */
  private passed = 0;
  /** What the store holds. */
  private persisted = 0;
  private current: OutgoingEvent | null = null;
  private readonly skippedSinceTake: SkippedEvent[] = [];
  /** The protocol's sequence number to store with the cursor (DC-09), and what is stored. */
  private sequenceSource: (() => number) | null = null;
  private persistedSequence = 0;
  /** The cursor write under way (flushes run one after the other). */
  private flushing: Promise<void> = Promise.resolve();
  /** A flush started by pass() is under way: the next one waits for it rather than queueing behind it. */
  private autoFlushing = false;

  constructor(options: OutboxOptions) {
    this.options = options;
    this.outputId = options.outputId;
    this.batchSize = options.batchSize ?? 256;
    this.flushEvery = options.flushEvery ?? 1000;
  }

  /**
   * Loads the cursor. An output that never stored one starts at the journal head (decision, docs/outputs.md): a newly
   * configured destination gets the events from now on, not the whole history of the box.
   */
  async open(): Promise<number> {
    const { cursors, journal } = this.options;
    const known = cursors.all().some((c) => c.outputId === this.outputId);
    if (!known) await this.options.cursorWrites.reset(this.outputId, journal.maxId());
    const cursor = cursors.get(this.outputId);
    this.persistedSequence = cursors.sequence(this.outputId);
    this.queue = [];
    this.queueIndex = 0;
    this.current = null;
    this.readPosition = cursor;
    this.passed = cursor;
    this.persisted = cursor;
    return cursor;
  }

  /** The sequence number stored with the cursor when the outbox was opened (0: none). */
  get storedSequence(): number {
    return this.persistedSequence;
  }

  /** Protocols with sequence numbers (DC-09): every cursor write stores `source()` with it. */
  trackSequence(source: () => number): void {
    this.sequenceSource = source;
  }

  /** Every event up to this id is delivered or skipped. */
  get cursor(): number {
    return this.passed;
  }

  /**
   * The event to send now (the same one until done() is called), or null when the output has caught up. Events the
   * filter refuses are passed on the way; skipped() lists them for logging.
   */
  head(): OutgoingEvent | null {
    if (this.current) return this.current;
    for (;;) {
      if (this.queueIndex >= this.queue.length && !this.fill()) return null;
      const event = this.queue[this.queueIndex]!;
      const reason = this.options.filter(event);
      if (reason !== null) {
        this.queueIndex++;
        this.pass(event.id);
        if (this.skippedSinceTake.length < 100) this.skippedSinceTake.push({ id: event.id, reason });
        continue;
      }
      this.current = { event, account: this.options.resolveAccount(event) };
      return this.current;
    }
  }

  /**
   * The head and up to `limit - 1` events the filter takes right behind it in the batch already read, without
   * moving anything: a webhook POSTs them together and calls done() for each, in order, once the POST is
   * answered. Events the filter refuses in between stay for head() to pass (so the cursor never passes an
   * undelivered event).
   */
  peek(limit: number): OutgoingEvent[] {
    const head = this.head();
    if (!head) return [];
    const out = [head];
    for (let i = this.queueIndex + 1; i < this.queue.length && out.length < limit; i++) {
      const event = this.queue[i]!;
      if (this.options.filter(event) === null) out.push({ event, account: this.options.resolveAccount(event) });
    }
    return out;
  }

  /** The head event is finished (ACKed, or given up deliberately): the next head() moves on. */
  done(id: number): void {
    if (!this.current || this.current.event.id !== id) return;
    this.current = null;
    this.queueIndex++;
    this.pass(id);
  }

  /** Events the filter passed over since the last call (bounded; for debug logs). */
  skipped(): SkippedEvent[] {
    return this.skippedSinceTake.splice(0);
  }

  /**
   * Writes the cursor if it moved, after the write under way. Rejects with the store's error (the caller logs it
   * and tries again later).
   */
  flush(): Promise<void> {
    const run = this.flushing.then(() => this.write());
    this.flushing = run.catch(() => undefined);
    return run;
  }

  /** Resolves once every cursor write started so far has been answered (stored or failed). */
  idle(): Promise<void> {
    return this.flushing;
  }

  private async write(): Promise<void> {
    const sequence = this.sequenceSource ? this.sequenceSource() : null;
    if (this.passed === this.persisted && (sequence === null || sequence === this.persistedSequence)) return;
    const target = this.passed;
    await this.options.cursorWrites.advance(this.outputId, target, sequence);
    this.persisted = target;
    if (sequence !== null) this.persistedSequence = sequence;
  }

  /** Events after the cursor (the ones not yet delivered or skipped). */
  backlog(): number {
    return this.options.journal.countAfter(this.passed);
  }

  /** flush() for the delivery loops: a failure is logged, never thrown (the store reports its own trouble). */
  async flushOrLog(logger: Logger): Promise<void> {
    try {
      await this.flush();
    } catch (err) {
      logger.error('cannot persist the output cursor', { output: this.outputId, error: describeError(err) });
    }
  }

  /** The figures every output shows: the backlog (null while the store cannot count it) and the cursor. */
  figures(): { backlog: number | null; cursor: number } {
    let backlog: number | null = null;
    try {
      backlog = this.backlog();
    } catch {
      // The store reports its own failure; the figure is simply unknown meanwhile.
    }
    return { backlog, cursor: this.passed };
  }

  private pass(id: number): void {
    if (id > this.passed) this.passed = id;
    // Not awaited: the delivery goes on while the writer commits; a failure is tried again by the next flush.
    if (this.autoFlushing || this.passed - this.persisted < this.flushEvery) return;
    this.autoFlushing = true;
    this.flush()
      .catch(() => undefined)
      .finally(() => (this.autoFlushing = false));
  }

  private fill(): boolean {
    const rows = this.options.journal.readAfter(this.readPosition, this.batchSize);
    this.queue = rows;
    this.queueIndex = 0;
    if (rows.length === 0) return false;
    this.readPosition = rows[rows.length - 1]!.id;
    return true;
  }
}
