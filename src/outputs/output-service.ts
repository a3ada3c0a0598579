/**
 * One output as a Service: the outbox feeds a protocol driver through a LinkSession, one message at a time
 * (MLR2-DG manual "Acknowledgment of the signal", applied to DC-09 too):
 *   - each message waits for its ACK for `ackTimeoutMs`; on NAK or silence it is sent again, `retries` times;
 *   - then the output is FAILED: it probes the link, never resending the event: while the link is down a connect
 *     attempt every `probeMinMs`, once up one supervision message (heartbeat / NULL) after a wait of `probeMinMs`
 *     doubling to `probeMaxMs`; it resumes from the first unacknowledged event as soon as a probe is ACKed ("the
 *     communication is resumed when the first ACK is received on the heartbeat"), so within about 2 s of the
 *     automation accepting connections again;
 *   - supervision runs every `supervisionIntervalMs` while healthy (0 = never);
 *   - a message the peer refuses (DC-09 DUH) while it ACKs a link test right after is skipped, so one unprocessable
 *     event cannot block the journal; if the link test fails too, the output fails instead (a wrong key makes the
 *     receiver refuse everything: nothing is skipped then).
 * A passive link (TCP server output, type 5) is not dialled: the loop waits for the automation client to connect,
 * a message waits while no client is connected, and the output fails when no client has been connected for
 * `noClientFailMs`; it is restored once a client connects and ACKs a heartbeat (docs/outputs.md §TCP server).
 * Health: `out:<id>` kind 'output' (docs/outputs.md §Health); the internal events output_failed / output_restored
 * come from these health transitions (the tracker's HealthEventBridge).
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { ComponentState, HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { isPassiveLink, type ByteLink, type PassiveLink } from './byte-link.js';
import { LinkSession } from './link-session.js';
import { OutputMetrics } from './output-metrics.js';
import type { OutputTimings } from './output-timings.js';
import type { Outbox } from './outbox.js';
import type { Exchange, ProtocolDriver } from './protocol-driver.js';
import { Wakeup } from './wakeup.js';

export interface OutputServiceOptions<R> {
  readonly id: number;
  readonly link: ByteLink;
  readonly driver: ProtocolDriver<R>;
  readonly outbox: Outbox;
  readonly timings: OutputTimings;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  /** The protocol as the Status view shows it (metric `protocol`); the driver's name when absent. */
  readonly protocolLabel?: string;
  /** Subscribes to "new events were journaled" (the ingest bus `event-stored`); returns the unsubscribe. */
  readonly onEventStored?: (listener: () => void) => () => void;
}

export class OutputService<R> implements Service {
  readonly name: string;
  private readonly o: OutputServiceOptions<R>;
  private readonly metrics: OutputMetrics;
  private readonly session: LinkSession<R>;
  private readonly wakeup = new Wakeup();
  private stopping = false;
  private failed = false;
  private journalTrouble = false;
  private loop: Promise<void> | null = null;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | null = null;
  private nextSupervisionAt = Infinity;
  private reconnectAt = 0;
  private reconnectDelay: number;
  /** Wait before the next heartbeat probe while failed. */
  private probeDelay: number;
  private readonly passive: PassiveLink | null;
  /** Since when a passive link has had no client (monotonic ms). */
  private noClientSince = 0;
  private listenError: string | null = null;

  constructor(options: OutputServiceOptions<R>) {
    this.o = options;
    this.name = `out:${options.id}`;
    this.metrics = new OutputMetrics(this.name, options.health, options.clock.now(), {
      protocol: options.protocolLabel ?? options.driver.protocol,
    });
    this.reconnectDelay = options.timings.reconnectDelayMs;
    this.probeDelay = options.timings.probeMinMs;
    this.passive = isPassiveLink(options.link) ? options.link : null;
    this.session = new LinkSession({
      outputId: options.id,
      link: options.link,
      driver: options.driver,
      ackTimeoutMs: options.timings.ackTimeoutMs,
      metrics: this.metrics,
      logger: options.logger,
      now: () => options.clock.now(),
      onConnected: () => this.onConnected(),
      onConnectFailed: (reason) => this.failed || this.report('degraded', reason),
      onLost: (reason) => this.onLinkLost(reason),
    });
  }

  /** Whether the output is in the failed (supervision-only) state. */
  get isFailed(): boolean {
    return this.failed;
  }

  async start(): Promise<void> {
    if (this.loop) return;
    const { outbox, link, timings, logger } = this.o;
    this.stopping = false;
    this.report('starting', null);
    try {
      const cursor = await outbox.open();
      const { sequence } = this.o.driver;
      if (sequence) {
        sequence.restore(outbox.storedSequence);
        outbox.trackSequence(() => sequence.settled());
      }
      logger.info('output starting', {
        output: this.o.id,
        protocol: this.o.driver.protocol,
        link: link.description,
        cursor,
      });
    } catch (err) {
      this.report('failed', `cannot read the output cursor: ${describeError(err)}`);
      throw err;
    }
    this.session.attach();
    this.noClientSince = this.tick();
    this.passive?.onClientWaiting(() => this.wakeup.ring());
    this.unsubscribe = this.o.onEventStored?.(() => this.wakeup.ring()) ?? null;
    this.timers.push(setInterval(() => void this.flushCursor(), timings.cursorFlushMs));
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
    this.session.stop();
    await this.loop;
    this.loop = null;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unsubscribe?.();
    this.unsubscribe = null;
    await this.session.close();
    await this.flushCursor();
    // Removed, not 'stopped': an output deleted from the settings must not keep /health at 503.
    this.o.health.remove(this.name);
    this.o.logger.info('output stopped', { output: this.o.id, cursor: this.o.outbox.cursor });
  }

  private async run(): Promise<void> {
    const { outbox, driver, timings, logger } = this.o;
    while (!this.stopping) {
      if (this.passive && !this.passive.connected) {
        await this.awaitClient(this.passive);
        continue;
      }
      if (this.failed) {
        await this.probe();
        continue;
      }
      if (!this.session.connected && this.tick() >= this.reconnectAt) await this.connectWhileIdle();
      if (this.tick() >= this.nextSupervisionAt) {
        const supervision = driver.supervision();
        const result = await this.session.deliver(supervision, timings.retries);
        if (result === 'ack') this.scheduleSupervision();
        else if (result !== 'stopped' && result !== 'disconnected')
          this.fail(`${supervision.label} not acknowledged after ${timings.retries + 1} transmissions`);
        continue;
      }
      let head;
      try {
        head = outbox.head();
        for (const s of outbox.skipped())
          logger.debug('event not for this output', { output: this.o.id, event: s.id, reason: s.reason });
      } catch (err) {
        this.journalTrouble = true;
        this.report('degraded', `cannot read the journal: ${describeError(err)}`);
        await this.session.pause(timings.pollIntervalMs);
        continue;
      }
      if (this.journalTrouble) {
        this.journalTrouble = false;
        if (this.session.connected) this.report('ok', null);
      }
      if (head) {
        await this.send(head.event.id, driver.event(head));
        continue;
      }
      const until =
        Math.min(this.nextSupervisionAt, this.session.connected ? Infinity : this.reconnectAt) - this.tick();
      await this.wakeup.wait(Math.min(timings.pollIntervalMs, Math.max(0, until)));
    }
  }

  private async send(eventId: number, exchange: Exchange<R> | { skip: string }): Promise<void> {
    const { outbox, logger, timings, driver } = this.o;
    if ('skip' in exchange) {
      logger.error('event cannot be sent by this output; skipped', {
        output: this.o.id,
        event: eventId,
        reason: exchange.skip,
      });
      this.metrics.count('unsendable');
      outbox.done(eventId);
      return;
    }
    const result = await this.session.deliver(exchange, timings.retries);
    if (result === 'stopped' || result === 'disconnected') return;
    if (result === 'ack') {
      outbox.done(eventId);
      this.metrics.count('delivered');
      if (driver.supervisionOnlyWhenIdle) this.scheduleSupervision();
      return;
    }
    if (result === 'refused' && (await this.session.deliver(driver.supervision(), 0)) === 'ack') {
      logger.error('peer refuses the event but acknowledges link tests; skipped', {
        output: this.o.id,
        event: eventId,
      });
      this.metrics.count('unsendable');
      outbox.done(eventId);
      return;
    }
    if (!this.stopping) this.fail(`${exchange.label} not acknowledged after ${timings.retries + 1} transmissions`);
  }

  private onConnected(): void {
    this.reconnectDelay = this.o.timings.reconnectDelayMs;
    this.metrics.set({ connected: true });
    if (!this.failed) this.report('ok', null);
  }

  private onLinkLost(reason: string): void {
    this.o.logger.warn('link lost', { output: this.o.id, link: this.o.link.description, reason });
    this.metrics.set({ connected: false });
    if (!this.failed) this.report('degraded', `disconnected: ${reason}`);
    this.reconnectAt = this.tick() + this.reconnectDelay;
    this.noClientSince = this.tick();
    this.wakeup.ring();
  }

  /**
   * A passive link without a client: (re)bind the port if needed, adopt a client that connected, or wait for one;
   * no client for `noClientFailMs` fails the output. Connecting alone does not restore a failed output: the probe
   * (a heartbeat the client ACKs) does.
   */
  private async awaitClient(link: PassiveLink): Promise<void> {
    const { timings, logger } = this.o;
    if (link.listeningOn === null) {
      try {
        await link.listen();
        this.listenError = null;
        logger.info('listening for the automation client', { output: this.o.id, address: link.listeningOn });
        if (!this.failed) this.report('degraded', `listening on ${link.listeningOn}; no automation client connected`);
        this.refreshMetrics();
      } catch (err) {
        const reason = describeError(err);
        if (this.listenError !== reason) logger.error('cannot listen', { output: this.o.id, error: reason });
        this.listenError = reason;
        if (!this.failed) this.fail(reason);
        // A port held by another program: try again, without a log line per attempt.
        await this.wakeup.wait(timings.probeMaxMs);
        return;
      }
    }
    if (link.clientWaiting) {
      await this.session.connect();
      this.refreshMetrics();
      return;
    }
    const failAt = this.noClientSince + timings.noClientFailMs;
    if (!this.failed && this.tick() >= failAt) {
      this.fail(`no automation client connected for ${Math.round(timings.noClientFailMs / 1000)} s`);
      return;
    }
    const until = this.failed ? timings.pollIntervalMs : Math.min(timings.pollIntervalMs, failAt - this.tick());
    await this.wakeup.wait(Math.max(0, until));
  }

  /** While idle the link is kept up with a growing delay; failures here do not count toward the failed state. */
  private async connectWhileIdle(): Promise<void> {
    if (await this.session.connect()) return;
    this.reconnectAt = this.tick() + this.reconnectDelay;
    const { probeMaxMs, reconnectDelayMs } = this.o.timings;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, Math.max(probeMaxMs, reconnectDelayMs));
  }

  /**
   * One probe while failed: a connect attempt while the link is down (cheap: a refused TCP connect
   * costs nothing and is what notices the automation's return), else one supervision message
   * without retries. Never the event itself (docs/outputs.md §Failed state).
   */
  private async probe(): Promise<void> {
    const { probeMinMs, probeMaxMs } = this.o.timings;
    if (!this.session.connected) {
      await this.session.pause(probeMinMs);
      if (this.stopping || !(await this.session.connect())) return;
    } else {
      await this.session.pause(this.probeDelay);
    }
    if (this.stopping) return;
    if ((await this.session.deliver(this.o.driver.supervision(), 0)) !== 'ack') {
      this.probeDelay = Math.min(this.probeDelay * 2, probeMaxMs);
      return;
    }
    this.probeDelay = probeMinMs;
    this.failed = false;
    this.metrics.set({ failed: false });
    this.report('ok', null);
    this.scheduleSupervision();
    this.o.logger.info('output restored: resuming from the first unacknowledged event', {
      output: this.o.id,
      cursor: this.o.outbox.cursor,
    });
  }

  private fail(reason: string): void {
    this.failed = true;
    this.metrics.set({ failed: true });
    this.report('failed', reason);
    void this.flushCursor();
    this.o.logger.error('output failed: only supervision messages until one is acknowledged', {
      output: this.o.id,
      reason,
    });
  }

  private scheduleSupervision(): void {
    const interval = this.o.timings.supervisionIntervalMs;
    this.nextSupervisionAt = interval > 0 ? this.tick() + interval : Infinity;
  }

  private flushCursor(): Promise<void> {
    return this.o.outbox.flushOrLog(this.o.logger);
  }

  private refreshMetrics(): void {
    const passive: Record<string, string | number | null> = this.passive
      ? {
          listening: this.passive.listeningOn,
          client: this.passive.client,
          refused_clients: this.passive.refusedClients,
        }
      : {};
    this.metrics.set({ ...this.o.outbox.figures(), connected: this.session.connected, ...passive });
  }

  private report(state: ComponentState, detail: string | null): void {
    this.metrics.report(state, detail);
  }

  /** Monotonic time for scheduling: a wall-clock step (NTP, a NAK-taught offset) must not stall or rush the loop. */
  private tick(): number {
    return performance.now();
  }
}
