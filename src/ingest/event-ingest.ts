/**
 * Group commit, pipelined (docs/writer.md §The commit cycle). Every receiver connection submits its
 * ACKable frames here; what is queued during one turn of the event loop, from all connections,
 * becomes ONE batch for the writer thread (src/writer/) on the next setImmediate (at once when the
 * queue is large or fills a gather, batch-gate.ts). While the writer commits batch k, this thread keeps parsing and queues batch
 * k+1, which leaves as soon as k is answered: at most one batch in flight and one accumulating;
 * the sessions' own in-flight limits pause their sockets when the writer falls behind.
 *
 * Each submit() resolves only after COMMIT (with synchronous=FULL: after the fsync), so a
 * receiver that writes its ACK on resolution never ACKs an event that is not durably stored
 * (docs/store.md §Durability). If the batch fails, or the writer thread dies, every submit of
 * that batch rejects: the devices get no ACK and retransmit.
 */
import type { TypedBus } from '../core/bus.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { PipelineMetrics } from '../core/pipeline-metrics.js';
import type { StartupRules } from '../writer/startup-events.js';
import { BatchEncoder, type MutableRow, type Op, type Sent, type SentItem } from './batch-encoder.js';
import { BatchGate } from './batch-gate.js';
import { collectSightings } from '../writer/sightings.js';
import type { IngestEvents, IngestItem, IngestResult, IngestSink, IngestStats, SessionLog } from './types.js';
import type { JournalWriter, WireResult } from '../writer/wire.js';

export interface EventIngestDeps {
  /** The writer thread's journal side (src/writer/writer-proxy.ts), or a fake that speaks its protocol. */
  readonly writer: JournalWriter;
  readonly logger: Logger;
  readonly bus?: TypedBus<IngestEvents>;
  /** The store's health entry is set 'failed' while batches fail, 'ok' when one commits again. */
  readonly health?: HealthRegistry;
  /** database.device_session_log_count (1..25), read for every batch. */
  readonly sessionLogCount?: () => number;
  /** Longest wait for the answered devices to come back (default GATHER_MAX_MS; tests). */
  readonly gatherMaxMs?: number;
  /** Items queued before a batch leaves at once instead of on the next setImmediate. */
  readonly maxBatchItems?: number;
  /**
   * Ignorable startup events (docs/supervision.md): read when a batch leaves and sent with it; the
   * writer flags the rows inside the transaction, where it decides each row's object, so an output
   * never sees a row unflagged and identity is decided in one thread only. None: nothing flagged.
   */
  readonly startupRules?: () => StartupRules;
  /**
   * Commit and ACK timings for GET /metrics (docs/metrics.md): measured here, once per batch and
   * once per submit, rather than by wrapping submit() in another promise per connection.
   */
  readonly pipeline?: PipelineMetrics;
}

export const DEFAULT_MAX_BATCH_ITEMS = 2000;
const NO_IDS: readonly number[] = Object.freeze([]);

/** The journal id of the batch's row number `n` (the ids are consecutive: WireResult.eventIds). */
function idOf(eventIds: WireResult['eventIds'], n: number): number {
  return typeof eventIds === 'number' ? eventIds + n : eventIds[n]!;
}

export class EventIngest {
  readonly stats: IngestStats = {
    flushes: 0,
    failedFlushes: 0,
    items: 0,
    events: 0,
    linkTests: 0,
    objectsRegistered: 0,
    largestFlush: 0,
  };
  private readonly deps: EventIngestDeps;
  private readonly writer: JournalWriter;
  private readonly maxBatchItems: number;
  private readonly encoder: BatchEncoder;
  private queue: Op[] = [];
  private queuedItems = 0;
  private inFlight = false;
  /** performance.now() when the batch in flight left (the gate compares gathers with commits). */
  private sentAt = 0;
  private scheduled: NodeJS.Immediate | null = null;
  private failing = false;
  /** Gathers the fleet into one commit after an answer (batch-gate.ts). */
  readonly gate: BatchGate;
  private readonly flushSoon = (): void => {
    this.scheduled = null;
    if (!this.inFlight) this.dispatch();
  };

  constructor(deps: EventIngestDeps) {
    this.deps = deps;
    this.writer = deps.writer;
    this.maxBatchItems = deps.maxBatchItems ?? DEFAULT_MAX_BATCH_ITEMS;
    this.gate = new BatchGate(() => {
      if (!this.inFlight) this.dispatch();
    }, deps.gatherMaxMs);
    this.encoder = new BatchEncoder({ startupRules: deps.startupRules, sessionLogCount: deps.sessionLogCount });
  }

  /** Queues items for the next group commit; resolves after COMMIT with one result per item, in order. */
  submit(items: readonly IngestItem[]): Promise<IngestResult[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<IngestResult[]>((resolve, reject) =>
      this.submitTo(items, { committed: resolve, failed: reject }),
    );
  }

  /**
   * submit() for the receivers' hot path: `sink` hears the outcome after COMMIT (or the failure),
   * without a promise and its reactions per connection read.
   */
  submitTo(items: readonly IngestItem[], sink: IngestSink): void {
    if (items.length === 0) {
      sink.committed([]);
      return;
    }
    this.queue.push({ kind: 'items', items, sink, at: this.deps.pipeline ? performance.now() : 0 });
    this.queuedItems += items.length;
    if (this.inFlight) return;
    if (this.gate.gathering) {
      // Gathered: it leaves now, from the read that filled it; waiting for the rest of this turn of the
      // event loop (setImmediate) only delays the commit the whole fleet waits for (docs/receivers.md
      // §Group commit).
      if (this.queuedItems >= this.maxBatchItems || this.gate.full(this.queuedItems)) this.dispatch();
      return;
    }
    if (this.queuedItems >= this.maxBatchItems) this.dispatch();
    else this.schedule();
  }

  /** The connection ended: its session row is closed in the next batch, after its last frames. */
  closeSession(session: SessionLog, at: number): void {
    session.closed = true;
    this.queue.push({ kind: 'close', session, at });
    if (!this.inFlight && !this.gate.gathering) this.schedule();
  }

  /** Sends whatever is queued now (receivers call it when they stop); after the batch in flight if any. */
  drain(): void {
    this.gate.cancel();
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    if (!this.inFlight) this.dispatch();
  }

  /** Waits until nothing is queued or in flight, then releases the writer (its thread). */
  async close(): Promise<void> {
    this.drain();
    for (let i = 0; i < 1000 && (this.inFlight || this.queue.length > 0); i++)
      await new Promise((r) => setTimeout(r, 5));
    await this.writer.close();
  }

  /** The journal writer's liveness probe: the watchdog's "writer alive and committing" check (docs/watchdog.md). */
  get writerProbe(): Pick<JournalWriter, 'ping' | 'liveness'> {
    return this.writer;
  }

  /** Items waiting for the next batch. */
  get queued(): number {
    return this.queuedItems;
  }

  private schedule(): void {
    if (!this.scheduled) this.scheduled = setImmediate(this.flushSoon);
  }

  private dispatch(): void {
    if (this.scheduled) {
      clearImmediate(this.scheduled);
      this.scheduled = null;
    }
    const ops = this.queue;
    if (ops.length === 0) return;
    this.queue = [];
    this.queuedItems = 0;
    const sent = this.encoder.encode(ops);
    this.inFlight = true;
    this.sentAt = performance.now();
    this.writer
      .write(sent.batch)
      .then(
        (result) => this.committed(sent, result),
        (err: unknown) => this.failed(sent, err),
      )
      // A bug here must not become an unhandled rejection (it would end the process).
      .catch((err: unknown) => this.deps.logger.error('cannot publish a journal batch', { error: describeError(err) }));
  }

  /** After COMMIT: records learnt, the next batch sent, counters, health, then the ACKs and the bus (publish). */
  private committed(sent: Sent, result: WireResult): void {
    for (const [key, id, objectId] of result.opened) {
      const session = sent.sessions.get(key);
      if (session && session.id === null) {
        session.id = id;
        session.objectId = objectId;
      }
    }
    for (const [objectId, account] of result.adopted) {
      const device = sent.devices.get(objectId);
      if (device && device.account === '') device.account = account;
    }
    this.inFlight = false;
    const now = performance.now();
    const commitMs = now - this.sentAt;
    // The gate decides whether what arrived during the commit leaves now or gathers the fleet first.
    const items = sent.items.length;
    if (this.gate.answered(items, this.queuedItems, commitMs)) this.dispatch();
    const stats = this.stats;
    stats.flushes++;
    stats.items += items;
    stats.events += sent.rows.length;
    stats.linkTests += sent.linkTests;
    stats.objectsRegistered += result.registered.length;
    if (items > stats.largestFlush) stats.largestFlush = items;
    if (this.failing) {
      this.failing = false;
      this.deps.logger.info('journal writes succeed again');
      this.deps.health?.report('store', 'store', 'ok', null);
    }
    this.publish(sent, result);
    const pipeline = this.deps.pipeline;
    if (pipeline) {
      pipeline.journalCommit(commitMs, result.eventCount);
      for (const op of sent.ops) if (op.kind === 'items') pipeline.ackLatency(now - op.at, op.items.length);
    }
  }

  /**
   * The ACKs first, then the bus: a device waits for its ACK, and nothing on the bus (outputs'
   * wake-up, supervision, metrics, the status feed) has to run before it. Every row is durable
   * already; the listeners still hear every row in id order in this same turn of the event loop.
   * The batch's frames and hellos are answered in order (WireResult.objectIds), the rows by their
   * number in the batch (eventIds, flagged).
   */
  private publish(sent: Sent, result: WireResult): void {
    const { objectIds, eventIds, helloObjects } = result;
    const rows = sent.rows;
    for (const [n, flags] of result.flagged) rows[n]!.flags = flags;
    let i = 0;
    for (const op of sent.ops) {
      if (op.kind === 'close') continue;
      const list: IngestResult[] = new Array(op.items.length);
      for (let k = 0; k < list.length; k++, i++) {
        const item = sent.items[i]!;
        const objectId = objectIds[i] ?? null;
        if (item.hello >= 0) list[k] = { objectId, eventIds: NO_IDS, object: helloObjects[item.hello]! };
        else list[k] = { objectId, eventIds: this.stored(item, rows, objectId, eventIds) };
      }
      this.settle(op.sink, list);
    }
    const bus = this.deps.bus;
    if (!bus) return;
    for (const object of result.registered) bus.emit('object-registered', { object });
    for (let n = 0; n < rows.length; n++) bus.emit('event-stored', { id: idOf(eventIds, n), event: rows[n]! });
    // Computed here from the batch and the attributions, exactly as the writer did (src/writer/sightings.ts).
    for (const [objectId, s] of collectSightings(sent.batch.ops, objectIds))
      bus.emit('object-seen', { objectId, at: s.at, ping: s.ping, remoteAddress: s.remote });
  }

  /** A frame's rows get the object the writer attributed it to; their ids, in order. */
  private stored(
    item: SentItem,
    rows: MutableRow[],
    objectId: number | null,
    eventIds: WireResult['eventIds'],
  ): readonly number[] {
    const count = item.rowCount;
    if (count === 0) return NO_IDS;
    const ids: number[] = new Array(count);
    for (let k = 0; k < count; k++) {
      const n = item.firstRow + k;
      rows[n]!.objectId = objectId;
      ids[k] = idOf(eventIds, n);
    }
    return ids;
  }

  /** A sink that throws (a bug) is logged; it must not keep the other submits of the batch from hearing. */
  private settle(sink: IngestSink, results: IngestResult[]): void {
    try {
      sink.committed(results);
    } catch (err) {
      this.deps.logger.error('a receiver failed to take its committed frames', { error: describeError(err) });
    }
  }

  private fail(sink: IngestSink, cause: unknown): void {
    try {
      sink.failed(cause);
    } catch (err) {
      this.deps.logger.error('a receiver failed to take a failed commit', { error: describeError(err) });
    }
  }

  /** Nothing of the batch was stored: undo what this thread counted, report, reject every submit. */
  private failed(sent: Sent, err: unknown): void {
    for (const [session, n] of sent.counted) session.events -= n;
    this.stats.failedFlushes++;
    const message = describeError(err);
    if (!this.failing) {
      this.failing = true;
      this.deps.logger.error('journal write failed: devices get no ACK and will retransmit', {
        items: sent.items.length,
        error: message,
      });
      this.deps.health?.report('store', 'store', 'failed', `journal write failed: ${message}`);
    }
    for (const op of sent.ops) if (op.kind === 'items') this.fail(op.sink, err);
    this.inFlight = false;
    this.dispatch();
  }
}
