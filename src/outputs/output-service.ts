/**
 * One output as a Service: the outbox feeds a protocol driver over a ByteLink, one message at a time
 * (MLR2-DG manual "Acknowledgment of the signal", applied to DC-09 too):
 *   - each message waits for its ACK for `ackTimeoutMs`; on NAK or silence it is sent again, `retries` times;
 *   - then the output is FAILED: it sends only supervision messages (heartbeat / NULL) every `probeIntervalMs` and
 *     resumes from the first unacknowledged event as soon as one is ACKed;
 *   - supervision runs every `supervisionIntervalMs` while healthy (0 = never);
 *   - a message the peer refuses (DC-09 DUH) while it ACKs a link test right after is skipped, so one unprocessable
 *     event cannot block the journal; if the link test fails too, the output fails instead (a wrong key makes the
 *     receiver refuse everything: nothing is skipped then).
 * Health: `out:<id>` kind 'output' (docs/outputs.md §Health); failure and restore are also reported through
 * onStateChange for the internal events output_failed / output_restored.
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { ComponentState, HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { ByteLink } from './byte-link.js';
import { OutputMetrics } from './output-metrics.js';
import type { Outbox } from './outbox.js';
import type { Exchange, ProtocolDriver, Verdict } from './protocol-driver.js';
import { Wakeup } from './wakeup.js';

export interface OutputTimings {
  /** Wait for the ACK of one transmission (MLR2: 4000; DC-09: sia_dc09.ack_timeout_ms). */
  readonly ackTimeoutMs: number;
  /** Transmissions after the first before the output fails (MLR2: 3; DC-09: sia_dc09.retries). */
  readonly retries: number;
  /** Heartbeat / link test period while healthy; 0 = none (MLR2: 30 000; DC-09: link_test_interval_s). */
  readonly supervisionIntervalMs: number;
  /** Period of the supervision probes while failed. */
  readonly probeIntervalMs: number;
  /** First reconnect delay after the link dropped while idle; doubles up to probeIntervalMs. */
  readonly reconnectDelayMs: number;
  /** Journal re-check while idle, in case a new-event signal was missed or none is wired. */
  readonly pollIntervalMs: number;
  /** The cursor is persisted at least this often while it moves. */
  readonly cursorFlushMs: number;
  /** Backlog count and metrics refresh. */
  readonly metricsIntervalMs: number;
}

export type OutputState = 'failed' | 'restored';
export type OutputStateListener = (outputId: number, state: OutputState) => void;

export interface OutputServiceOptions<R> {
  readonly id: number;
  readonly link: ByteLink;
  readonly driver: ProtocolDriver<R>;
  readonly outbox: Outbox;
  readonly timings: OutputTimings;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Subscribes to "new events were journaled" (the ingest bus `event-stored`); returns the unsubscribe. */
  readonly onEventStored?: (listener: () => void) => () => void;
  readonly onStateChange?: OutputStateListener;
}

type Outcome = Verdict | 'timeout' | 'closed' | 'stopped';
type DeliverResult = 'ack' | 'failed' | 'refused' | 'stopped';

interface Pending<R> {
  readonly exchange: Exchange<R>;
  readonly finish: (outcome: Outcome) => void;
}

export class OutputService<R> implements Service {
  readonly name: string;
  private readonly o: OutputServiceOptions<R>;
  private readonly metrics: OutputMetrics;
  private readonly wakeup = new Wakeup();
  private readonly stopWaiters = new Set<() => void>();
  private pending: Pending<R> | null = null;
  private stopping = false;
  private failed = false;
  private loop: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private nextSupervisionAt = Infinity;
  private reconnectAt = 0;
  private reconnectDelay: number;

  constructor(options: OutputServiceOptions<R>) {
    this.o = options;
    this.name = `out:${options.id}`;
    this.metrics = new OutputMetrics(this.name, options.health);
    this.reconnectDelay = options.timings.reconnectDelayMs;
  }

  /** Whether the output is in the failed (heartbeat-only) state. */
  get isFailed(): boolean {
    return this.failed;
  }

  async start(): Promise<void> {
    if (this.loop) return;
    const { outbox, link, timings, logger } = this.o;
    this.stopping = false;
    this.report('starting', null);
    try {
      const cursor = outbox.open();
      logger.info('output starting', { output: this.o.id, protocol: this.o.driver.protocol, link: link.description, cursor });
    } catch (err) {
      this.report('failed', `cannot read the output cursor: ${describeError(err)}`);
      throw err;
    }
    link.onData((chunk) => this.onData(chunk));
    link.onClose((reason) => this.onLinkClosed(reason));
    this.unsubscribe = this.o.onEventStored?.(() => this.wakeup.ring()) ?? null;
    this.timers.push(setInterval(() => this.flushCursor(), timings.cursorFlushMs));
    this.timers.push(setInterval(() => this.refreshMetrics(), timings.metricsIntervalMs));
    this.refreshMetrics();
    if (timings.supervisionIntervalMs > 0) this.nextSupervisionAt = this.tick() + timings.supervisionIntervalMs;
    // start() does not wait for the peer: a destination that is down must not hold up the gateway.
    this.loop = this.run().catch((err: unknown) => {
      logger.error('output loop ended unexpectedly', { output: this.o.id, error: describeError(err) });
      this.report('failed', `internal error: ${describeError(err)}`);
    });
  }

  async stop(): Promise<void> {
    if (!this.loop) return;
    this.stopping = true;
    this.wakeup.ring();
    this.pending?.finish('stopped');
    for (const wake of [...this.stopWaiters]) wake();
    await this.loop;
    this.loop = null;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.o.link.close();
    this.flushCursor();
    // Removed, not 'stopped': an output deleted from the settings must not keep /health at 503.
    this.o.health.remove(this.name);
    this.o.logger.info('output stopped', { output: this.o.id, cursor: this.o.outbox.cursor });
  }

  private async run(): Promise<void> {
    const { outbox, driver, timings, logger } = this.o;
    while (!this.stopping) {
      if (this.failed) {
        await this.probe();
        continue;
      }
      if (!this.o.link.connected && this.tick() >= this.reconnectAt) await this.connectWhileIdle();
      if (this.tick() >= this.nextSupervisionAt) {
        const supervision = driver.supervision();
        const result = await this.deliver(supervision, timings.retries);
        if (result === 'ack') this.scheduleSupervision();
        else if (result !== 'stopped') this.fail(`${supervision.label} not acknowledged after ${timings.retries + 1} transmissions`);
        continue;
      }
      let head;
      try {
        head = outbox.head();
        for (const s of outbox.skipped()) logger.debug('event not for this output', { output: this.o.id, event: s.id, reason: s.reason });
      } catch (err) {
        this.report('degraded', `cannot read the journal: ${describeError(err)}`);
        await this.pause(timings.pollIntervalMs);
        continue;
      }
      if (head) {
        await this.send(head.event.id, driver.event(head));
        continue;
      }
      const until = Math.min(this.nextSupervisionAt, this.o.link.connected ? Infinity : this.reconnectAt) - this.tick();
      await this.wakeup.wait(Math.min(timings.pollIntervalMs, Math.max(0, until)));
    }
  }

  private async send(eventId: number, exchange: Exchange<R> | { skip: string }): Promise<void> {
    const { outbox, logger, timings, driver } = this.o;
    if ('skip' in exchange) {
      logger.error('event cannot be sent by this output; skipped', { output: this.o.id, event: eventId, reason: exchange.skip });
      this.metrics.count('unsendable');
      outbox.done(eventId);
      return;
    }
    const result = await this.deliver(exchange, timings.retries);
    if (result === 'stopped') return;
    if (result === 'ack') {
      outbox.done(eventId);
      this.metrics.count('delivered');
      if (driver.supervisionOnlyWhenIdle) this.scheduleSupervision();
      return;
    }
    if (result === 'refused' && (await this.deliver(driver.supervision(), 0)) === 'ack') {
      logger.error('peer refuses the event but acknowledges link tests; skipped', { output: this.o.id, event: eventId });
      this.metrics.count('unsendable');
      outbox.done(eventId);
      return;
    }
    if (!this.stopping) this.fail(`${exchange.label} not acknowledged after ${timings.retries + 1} transmissions`);
  }

  /** One message: send, wait for the verdict, send again on NAK / silence / link loss, up to `retries` more times. */
  private async deliver(exchange: Exchange<R>, retries: number): Promise<DeliverResult> {
    let unanswered = 0;
    let onlyRefused = true;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (this.stopping) return 'stopped';
      if (attempt > 0) this.metrics.count('retries');
      if (!this.o.link.connected) {
        unanswered = 0;
        if (!(await this.connect())) {
          onlyRefused = false;
          // A refused connection counts as a silent attempt: same pace as an unanswered message.
          await this.pause(this.o.timings.ackTimeoutMs);
          continue;
        }
      }
      const outcome = await this.transmit(exchange);
      if (outcome === 'ack') {
        this.o.driver.settled(unanswered);
        this.metrics.ack(this.now());
        return 'ack';
      }
      if (outcome === 'stopped') return 'stopped';
      if (outcome !== 'refused') onlyRefused = false;
      if (outcome === 'timeout') unanswered++;
      this.o.logger.debug('no acknowledgement', { output: this.o.id, message: exchange.label, outcome, attempt });
    }
    return onlyRefused ? 'refused' : 'failed';
  }

  private transmit(exchange: Exchange<R>): Promise<Outcome> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish('timeout'), this.o.timings.ackTimeoutMs);
      const finish = (outcome: Outcome): void => {
        if (this.pending !== pending) return;
        clearTimeout(timer);
        this.pending = null;
        resolve(outcome);
      };
      const pending: Pending<R> = { exchange, finish };
      this.pending = pending;
      try {
        this.o.link.write(exchange.frame());
      } catch (err) {
        this.o.logger.warn('write failed', { output: this.o.id, error: describeError(err) });
        finish('closed');
      }
    });
  }

  private onData(chunk: Buffer): void {
    for (const reply of this.o.driver.read(chunk, this.o.link.framing)) {
      const pending = this.pending;
      if (!pending) return;
      const verdict = pending.exchange.reply(reply);
      if (verdict !== 'ignore') pending.finish(verdict);
    }
  }

  private onLinkClosed(reason: string): void {
    this.o.logger.warn('link lost', { output: this.o.id, link: this.o.link.description, reason });
    this.metrics.set({ connected: false });
    if (!this.failed) this.report('degraded', `disconnected: ${reason}`);
    this.reconnectAt = this.tick() + this.reconnectDelay;
    this.pending?.finish('closed');
    this.wakeup.ring();
  }

  private async connect(): Promise<boolean> {
    try {
      await this.o.link.connect();
    } catch (err) {
      this.o.logger.warn('cannot connect', { output: this.o.id, error: describeError(err) });
      if (!this.failed) this.report('degraded', describeError(err));
      return false;
    }
    this.o.driver.reset();
    this.reconnectDelay = this.o.timings.reconnectDelayMs;
    this.metrics.set({ connected: true });
    if (!this.failed) this.report('ok', null);
    this.o.logger.info('connected', { output: this.o.id, link: this.o.link.description });
    return true;
  }

  /** While idle the link is kept up with a growing delay; failures here do not count toward the failed state. */
  private async connectWhileIdle(): Promise<void> {
    if (await this.connect()) return;
    this.reconnectAt = this.tick() + this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, Math.max(this.o.timings.probeIntervalMs, this.o.timings.reconnectDelayMs));
  }

  private async probe(): Promise<void> {
    await this.pause(this.o.timings.probeIntervalMs);
    if (this.stopping) return;
    if ((await this.deliver(this.o.driver.supervision(), 0)) !== 'ack') return;
    this.failed = false;
    this.metrics.set({ failed: false });
    this.report('ok', null);
    this.scheduleSupervision();
    this.o.logger.info('output restored: resuming from the first unacknowledged event', { output: this.o.id, cursor: this.o.outbox.cursor });
    this.notify('restored');
  }

  private fail(reason: string): void {
    this.failed = true;
    this.metrics.set({ failed: true });
    this.report('failed', reason);
    this.flushCursor();
    this.o.logger.error('output failed: only supervision messages until one is acknowledged', { output: this.o.id, reason });
    this.notify('failed');
  }

  private notify(state: OutputState): void {
    try {
      this.o.onStateChange?.(this.o.id, state);
    } catch (err) {
      this.o.logger.error('state change listener failed', { output: this.o.id, error: describeError(err) });
    }
  }

  private scheduleSupervision(): void {
    const interval = this.o.timings.supervisionIntervalMs;
    this.nextSupervisionAt = interval > 0 ? this.tick() + interval : Infinity;
  }

  /** Sleeps, but stop() cuts it short. */
  private pause(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.stopWaiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.stopWaiters.add(wake);
    });
  }

  private flushCursor(): void {
    try {
      this.o.outbox.flush();
    } catch (err) {
      this.o.logger.error('cannot persist the output cursor', { output: this.o.id, error: describeError(err) });
    }
  }

  private refreshMetrics(): void {
    let backlog: number | null = null;
    try {
      backlog = this.o.outbox.backlog();
    } catch {
      // The store reports its own failure; the figure is simply unknown meanwhile.
    }
    this.metrics.set({ backlog, cursor: this.o.outbox.cursor, connected: this.o.link.connected });
  }

  private report(state: ComponentState, detail: string | null): void {
    this.metrics.report(state, detail);
  }

  /** Wall-clock time (timestamps, last_ack_at). */
  private now(): number {
    return this.o.clock.now();
  }

  /** Monotonic time for scheduling: a wall-clock step (NTP, a NAK-taught offset) must not stall or rush the loop. */
  private tick(): number {
    return performance.now();
  }
}
