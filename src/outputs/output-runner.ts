/**
 * One output as a Service, whatever it delivers over (docs/outputs.md §Delivery): the durable outbox, read through
 * the output's cursor, is handed to a DeliveryStrategy one delivery at a time, peek → deliver → verdict:
 *   - peek: the head of the outbox (and, for a strategy that carries several, the events right behind it);
 *   - deliver: the strategy sends them and waits for the peer's answer (link-delivery.ts: one message per ACK over a
 *     ByteLink and a protocol driver; webhook-delivery.ts: one HTTP POST);
 *   - verdict: delivered (the cursor passes them), unsendable (the head is skipped, with the reason), failed, retry
 *     after a wait, or nothing done (the head stays the head).
 * The runner owns what every output shares: start and stop, the wake-up on new journal events, the cursor flush and
 * metrics timers, the health entry `out:<id>` (kind 'output') and its figures, the failed state (`output_failed` /
 * `output_restored` come from these health transitions, the tracker's HealthEventBridge), a journal that cannot be
 * read, and a loop that ends by a bug. What a strategy does before a delivery (connect, supervise, probe while
 * failed) is its own `ready()`.
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { ComponentState, HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { Outbox, OutgoingEvent } from './outbox.js';
import { OutputMetrics, type MetricValue } from './output-metrics.js';
import type { OutputTimings } from './output-timings.js';
import { Sleeps, Wakeup } from './wakeup.js';

/**
 * What a delivery did. delivered: every event of the batch was accepted. unsendable: the head cannot be delivered
 * (the protocol cannot carry it, or the peer refuses it while it accepts everything else); it is skipped with
 * `note` logged. failed: the output enters the failed state. retry: nothing accepted; `fail` says whether the
 * output is failed now (else degraded), and the next try waits `afterMs`. pending: nothing done (stopping, or a
 * passive link without a client); the head stays the head.
 */
export type Verdict =
  | { readonly kind: 'delivered' }
  | { readonly kind: 'unsendable'; readonly note: string; readonly reason?: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'retry'; readonly reason: string; readonly fail: boolean; readonly afterMs: number }
  | { readonly kind: 'pending' };

/** What a strategy may use of its runner. */
export interface DeliveryContext {
  readonly id: number;
  readonly outbox: Outbox;
  readonly metrics: OutputMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Rung by new journal events and by stop(); a strategy rings it when its link changes. */
  readonly wakeup: Wakeup;
  readonly stopping: boolean;
  readonly failed: boolean;
  /** Enters (or stays in) the failed state with `reason` as the health detail. */
  fail(reason: string): void;
  /** Leaves the failed state; `note` ends the log line ("output restored: <note>"). */
  restore(note: string): void;
  report(state: ComponentState, detail: string | null): void;
  /** Sleeps; stop() cuts it short. */
  pause(ms: number): Promise<void>;
  /** Publishes the figures now (the outbox's and the strategy's), not at the next metrics tick. */
  refreshMetrics(): void;
}

export interface DeliveryStrategy {
  /** The protocol for the start log ("MLR2", "JSON"). */
  readonly protocol: string;
  /** The protocol as the Status view shows it (metric `protocol`); none: no such metric. */
  readonly protocolLabel?: string;
  /** Where it delivers, for logs ("tcp 192.0.2.10:1025", "webhook https://host"). */
  readonly where: string;
  /** Events one delivery carries at most. */
  readonly batchSize: number;
  /** What the output does while failed, for the log line that says it failed. */
  readonly whileFailed: string;
  /** After the cursor is read: what the strategy needs before its first delivery; throws when it cannot run. */
  start(ctx: DeliveryContext): Promise<void>;
  /**
   * Before each delivery: keeps the way to the peer ready (connect, supervise, probe while failed). false: not
   * ready now (it has waited or probed already); the runner asks again.
   */
  ready(): Promise<boolean>;
  /** The longest the runner may wait for new events before asking ready() again (a supervision due, a reconnect). */
  idleMs(): number;
  deliver(batch: readonly OutgoingEvent[]): Promise<Verdict>;
  /** Whether the way to the peer is up (health returns to ok after a journal read failure only then). */
  healthy(): boolean;
  /** Figures of its own for the health entry (`connected`, the TCP server's `listening`...). */
  figures(): Record<string, MetricValue>;
  /** stop(): ends every wait and the delivery in flight at once. */
  interrupt(): void;
  /** After the loop ended: releases the link or client. */
  close(): Promise<void>;
}

export interface OutputRunnerOptions {
  readonly id: number;
  readonly strategy: DeliveryStrategy;
  readonly outbox: Outbox;
  readonly timings: Pick<OutputTimings, 'pollIntervalMs' | 'cursorFlushMs' | 'metricsIntervalMs'>;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Subscribes to "new events were journaled" (the ingest bus `event-stored`); returns the unsubscribe. */
  readonly onEventStored?: (listener: () => void) => () => void;
}

export class OutputRunner implements Service, DeliveryContext {
  readonly name: string;
  readonly id: number;
  readonly outbox: Outbox;
  readonly metrics: OutputMetrics;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly wakeup = new Wakeup();
  private readonly o: OutputRunnerOptions;
  private readonly strategy: DeliveryStrategy;
  private readonly sleeps = new Sleeps();
  private loop: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private isStopping = false;
  private isFailed = false;
  private journalTrouble = false;
  /** The state last reported while not failed (a delivery restores `ok` after a degraded retry). */
  private state: ComponentState = 'starting';

  constructor(options: OutputRunnerOptions) {
    this.o = options;
    this.strategy = options.strategy;
    this.id = options.id;
    this.name = `out:${options.id}`;
    this.outbox = options.outbox;
    this.logger = options.logger;
    this.clock = options.clock;
    const label = options.strategy.protocolLabel;
    this.metrics = new OutputMetrics(this.name, options.health, options.clock.now(), label ? { protocol: label } : {});
  }

  get stopping(): boolean {
    return this.isStopping;
  }

  get failed(): boolean {
    return this.isFailed;
  }

  async start(): Promise<void> {
    if (this.loop) return;
    const { outbox, strategy, logger, timings } = this.o;
    this.isStopping = false;
    this.sleeps.start();
    this.report('starting', null);
    let cursor: number;
    try {
      cursor = await outbox.open();
    } catch (err) {
      this.report('failed', `cannot read the output cursor: ${describeError(err)}`);
      throw err;
    }
    try {
      await strategy.start(this);
    } catch (err) {
      this.report('failed', `cannot start: ${describeError(err)}`);
      throw err;
    }
    logger.info('output starting', { output: this.id, protocol: strategy.protocol, link: strategy.where, cursor });
    this.unsubscribe = this.o.onEventStored?.(() => this.wakeup.ring()) ?? null;
    this.timers.push(setInterval(() => void this.flushCursor(), timings.cursorFlushMs));
    this.timers.push(setInterval(() => this.refreshMetrics(), timings.metricsIntervalMs));
    this.refreshMetrics();
    // start() does not wait for the peer: a destination that is down must not hold up the gateway.
    this.loop = this.run().catch((err: unknown) => {
      logger.error('output loop ended unexpectedly', { output: this.id, error: describeError(err) });
      this.report('failed', `internal error: ${describeError(err)}`);
    });
  }

  async stop(): Promise<void> {
    if (!this.loop) return;
    this.isStopping = true;
    this.wakeup.ring();
    this.sleeps.stop();
    this.strategy.interrupt();
    await this.loop;
    this.loop = null;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.strategy.close();
    await this.flushCursor();
    // Removed, not 'stopped': an output deleted from the settings must not keep /health at 503.
    this.o.health.remove(this.name);
    this.logger.info('output stopped', { output: this.id, cursor: this.outbox.cursor });
  }

  fail(reason: string): void {
    const first = !this.isFailed;
    this.isFailed = true;
    this.metrics.set({ failed: true });
    this.report('failed', reason);
    if (!first) return;
    void this.flushCursor();
    this.logger.error(`output failed: ${this.strategy.whileFailed}`, { output: this.id, reason });
  }

  restore(note: string): void {
    this.isFailed = false;
    this.metrics.set({ failed: false });
    this.report('ok', null);
    this.logger.info(`output restored: ${note}`, { output: this.id, cursor: this.outbox.cursor });
  }

  report(state: ComponentState, detail: string | null): void {
    if (state !== 'failed') this.state = state;
    this.metrics.report(state, detail);
  }

  pause(ms: number): Promise<void> {
    return this.sleeps.sleep(ms);
  }

  private async run(): Promise<void> {
    const { outbox, strategy, timings } = this.o;
    while (!this.isStopping) {
      if (!(await strategy.ready())) continue;
      let batch: OutgoingEvent[];
      try {
        batch = outbox.peek(strategy.batchSize);
        for (const s of outbox.skipped())
          this.logger.debug('event not for this output', { output: this.id, event: s.id, reason: s.reason });
      } catch (err) {
        this.journalTrouble = true;
        this.report('degraded', `cannot read the journal: ${describeError(err)}`);
        await this.pause(timings.pollIntervalMs);
        continue;
      }
      if (this.journalTrouble) {
        this.journalTrouble = false;
        if (!this.isFailed && strategy.healthy()) this.report('ok', null);
      }
      if (batch.length === 0) {
        await this.wakeup.wait(Math.min(timings.pollIntervalMs, Math.max(0, strategy.idleMs())));
        continue;
      }
      await this.apply(batch, await strategy.deliver(batch));
    }
  }

  private async apply(batch: readonly OutgoingEvent[], verdict: Verdict): Promise<void> {
    const outbox = this.outbox;
    switch (verdict.kind) {
      case 'delivered':
        for (const e of batch) {
          outbox.head();
          outbox.done(e.event.id);
          this.metrics.count('delivered');
        }
        if (this.isFailed) this.restore('delivering again');
        else if (this.state !== 'ok' && this.strategy.healthy()) this.report('ok', null);
        return;
      case 'unsendable': {
        const head = batch[0]!.event.id;
        this.logger.error(verdict.note, {
          output: this.id,
          event: head,
          ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}),
        });
        this.metrics.count('unsendable');
        outbox.done(head);
        return;
      }
      case 'failed':
        if (!this.isStopping) this.fail(verdict.reason);
        return;
      case 'retry':
        if (verdict.fail) this.fail(verdict.reason);
        else if (!this.isFailed) this.report('degraded', verdict.reason);
        await this.pause(verdict.afterMs);
        return;
      case 'pending':
        return;
    }
  }

  private flushCursor(): Promise<void> {
    return this.outbox.flushOrLog(this.logger);
  }

  refreshMetrics(): void {
    this.metrics.set({ ...this.outbox.figures(), ...this.strategy.figures() });
  }
}
