/**
 * The delivery of a link output (TCP client, UDP, COM, TCP server): a protocol driver over a ByteLink through a
 * LinkSession, one message at a time (MLR2-DG manual "Acknowledgment of the signal", applied to DC-09 too):
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
 * A passive link (TCP server output, type 5) is not dialled: it waits for the automation client to connect, a
 * message waits while no client is connected, and the output fails when no client has been connected for
 * `noClientFailMs`; it is restored once a client connects and ACKs a heartbeat (docs/outputs.md §TCP server).
 * The outbox, the health entry and the failed state are the OutputRunner's (output-runner.ts).
 */
import { describeError } from '../core/errors.js';
import { isPassiveLink, type ByteLink, type PassiveLink } from './byte-link.js';
import { LinkSession } from './link-session.js';
import type { OutgoingEvent } from './outbox.js';
import type { MetricValue } from './output-metrics.js';
import type { DeliveryContext, DeliveryStrategy, Verdict } from './output-runner.js';
import type { OutputTimings } from './output-timings.js';
import type { ProtocolDriver } from './protocol-driver.js';

export interface LinkDeliveryOptions<R> {
  readonly link: ByteLink;
  readonly driver: ProtocolDriver<R>;
  readonly timings: OutputTimings;
  /** The protocol as the Status view shows it (metric `protocol`); the driver's name when absent. */
  readonly protocolLabel?: string;
}

const PENDING: Verdict = { kind: 'pending' };
const DELIVERED: Verdict = { kind: 'delivered' };

export class LinkDelivery<R> implements DeliveryStrategy {
  readonly protocol: string;
  readonly protocolLabel: string;
  readonly where: string;
  readonly batchSize = 1;
  readonly whileFailed = 'only supervision messages until one is acknowledged';
  private readonly link: ByteLink;
  private readonly driver: ProtocolDriver<R>;
  private readonly timings: OutputTimings;
  private readonly passive: PassiveLink | null;
  private ctx: DeliveryContext | null = null;
  private session: LinkSession<R> | null = null;
  private nextSupervisionAt = Infinity;
  private reconnectAt = 0;
  private reconnectDelay: number;
  /** Wait before the next heartbeat probe while failed. */
  private probeDelay: number;
  /** Since when a passive link has had no client (monotonic ms). */
  private noClientSince = 0;
  private listenError: string | null = null;

  constructor(options: LinkDeliveryOptions<R>) {
    this.link = options.link;
    this.driver = options.driver;
    this.timings = options.timings;
    this.protocol = options.driver.protocol;
    this.protocolLabel = options.protocolLabel ?? options.driver.protocol;
    this.where = options.link.description;
    this.passive = isPassiveLink(options.link) ? options.link : null;
    this.reconnectDelay = options.timings.reconnectDelayMs;
    this.probeDelay = options.timings.probeMinMs;
  }

  async start(ctx: DeliveryContext): Promise<void> {
    this.ctx = ctx;
    const { sequence } = this.driver;
    if (sequence) {
      sequence.restore(ctx.outbox.storedSequence);
      ctx.outbox.trackSequence(() => sequence.settled());
    }
    this.session ??= new LinkSession({
      outputId: ctx.id,
      link: this.link,
      driver: this.driver,
      ackTimeoutMs: this.timings.ackTimeoutMs,
      metrics: ctx.metrics,
      logger: ctx.logger,
      now: () => ctx.clock.now(),
      onConnected: () => this.onConnected(),
      onConnectFailed: (reason) => ctx.failed || ctx.report('degraded', reason),
      onLost: (reason) => this.onLinkLost(reason),
    });
    this.session.attach();
    this.noClientSince = tick();
    this.passive?.onClientWaiting(() => ctx.wakeup.ring());
    if (this.timings.supervisionIntervalMs > 0) this.nextSupervisionAt = tick() + this.timings.supervisionIntervalMs;
  }

  async ready(): Promise<boolean> {
    const { ctx, session } = this.parts();
    if (this.passive && !this.passive.connected) {
      await this.awaitClient(this.passive);
      return false;
    }
    if (ctx.failed) {
      await this.probe();
      return false;
    }
    if (!session.connected && tick() >= this.reconnectAt) await this.connectWhileIdle();
    if (tick() < this.nextSupervisionAt) return true;
    const supervision = this.driver.supervision();
    const result = await session.deliver(supervision, this.timings.retries);
    if (result === 'ack') this.scheduleSupervision();
    else if (result !== 'stopped' && result !== 'disconnected')
      ctx.fail(`${supervision.label} not acknowledged after ${this.timings.retries + 1} transmissions`);
    return false;
  }

  idleMs(): number {
    const connected = this.session?.connected ?? false;
    return Math.min(this.nextSupervisionAt, connected ? Infinity : this.reconnectAt) - tick();
  }

  async deliver(batch: readonly OutgoingEvent[]): Promise<Verdict> {
    const { ctx, session } = this.parts();
    const exchange = this.driver.event(batch[0]!);
    if ('skip' in exchange)
      return { kind: 'unsendable', note: 'event cannot be sent by this output; skipped', reason: exchange.skip };
    const result = await session.deliver(exchange, this.timings.retries);
    if (result === 'stopped' || result === 'disconnected') return PENDING;
    if (result === 'ack') {
      if (this.driver.supervisionOnlyWhenIdle) this.scheduleSupervision();
      return DELIVERED;
    }
    if (result === 'refused' && (await session.deliver(this.driver.supervision(), 0)) === 'ack')
      return { kind: 'unsendable', note: 'peer refuses the event but acknowledges link tests; skipped' };
    if (ctx.stopping) return PENDING;
    return {
      kind: 'failed',
      reason: `${exchange.label} not acknowledged after ${this.timings.retries + 1} transmissions`,
    };
  }

  healthy(): boolean {
    return this.session?.connected ?? false;
  }

  figures(): Record<string, MetricValue> {
    const connected = this.session?.connected ?? false;
    if (!this.passive) return { connected };
    const p = this.passive;
    return { connected, listening: p.listeningOn, client: p.client, refused_clients: p.refusedClients };
  }

  interrupt(): void {
    this.session?.stop();
  }

  async close(): Promise<void> {
    await this.session?.close();
  }

  private parts(): { ctx: DeliveryContext; session: LinkSession<R> } {
    if (!this.ctx || !this.session) throw new Error('link delivery used before start()');
    return { ctx: this.ctx, session: this.session };
  }

  private onConnected(): void {
    const { ctx } = this.parts();
    this.reconnectDelay = this.timings.reconnectDelayMs;
    ctx.metrics.set({ connected: true });
    if (!ctx.failed) ctx.report('ok', null);
  }

  private onLinkLost(reason: string): void {
    const { ctx } = this.parts();
    ctx.logger.warn('link lost', { output: ctx.id, link: this.link.description, reason });
    ctx.metrics.set({ connected: false });
    if (!ctx.failed) ctx.report('degraded', `disconnected: ${reason}`);
    this.reconnectAt = tick() + this.reconnectDelay;
    this.noClientSince = tick();
    ctx.wakeup.ring();
  }

  /**
   * A passive link without a client: (re)bind the port if needed, adopt a client that connected, or wait for one;
   * no client for `noClientFailMs` fails the output. Connecting alone does not restore a failed output: the probe
   * (a heartbeat the client ACKs) does.
   */
  private async awaitClient(link: PassiveLink): Promise<void> {
    const { ctx, session } = this.parts();
    const timings = this.timings;
    if (link.listeningOn === null) {
      try {
        await link.listen();
        this.listenError = null;
        ctx.logger.info('listening for the automation client', { output: ctx.id, address: link.listeningOn });
        if (!ctx.failed) ctx.report('degraded', `listening on ${link.listeningOn}; no automation client connected`);
        ctx.refreshMetrics();
      } catch (err) {
        const reason = describeError(err);
        if (this.listenError !== reason) ctx.logger.error('cannot listen', { output: ctx.id, error: reason });
        this.listenError = reason;
        if (!ctx.failed) ctx.fail(reason);
        // A port held by another program: try again, without a log line per attempt.
        await ctx.wakeup.wait(timings.probeMaxMs);
        return;
      }
    }
    if (link.clientWaiting) {
      await session.connect();
      ctx.refreshMetrics();
      return;
    }
    const failAt = this.noClientSince + timings.noClientFailMs;
    if (!ctx.failed && tick() >= failAt) {
      ctx.fail(`no automation client connected for ${Math.round(timings.noClientFailMs / 1000)} s`);
      return;
    }
    const until = ctx.failed ? timings.pollIntervalMs : Math.min(timings.pollIntervalMs, failAt - tick());
    await ctx.wakeup.wait(Math.max(0, until));
  }

  /** While idle the link is kept up with a growing delay; failures here do not count toward the failed state. */
  private async connectWhileIdle(): Promise<void> {
    if (await this.parts().session.connect()) return;
    this.reconnectAt = tick() + this.reconnectDelay;
    const { probeMaxMs, reconnectDelayMs } = this.timings;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, Math.max(probeMaxMs, reconnectDelayMs));
  }

  /**
   * One probe while failed: a connect attempt while the link is down (cheap: a refused TCP connect
   * costs nothing and is what notices the automation's return), else one supervision message
   * without retries. Never the event itself (docs/outputs.md §Failed state).
   */
  private async probe(): Promise<void> {
    const { ctx, session } = this.parts();
    const { probeMinMs, probeMaxMs } = this.timings;
    if (!session.connected) {
      await session.pause(probeMinMs);
      if (ctx.stopping || !(await session.connect())) return;
    } else {
      await session.pause(this.probeDelay);
    }
    if (ctx.stopping) return;
    if ((await session.deliver(this.driver.supervision(), 0)) !== 'ack') {
      this.probeDelay = Math.min(this.probeDelay * 2, probeMaxMs);
      return;
    }
    this.probeDelay = probeMinMs;
    ctx.restore('resuming from the first unacknowledged event');
    this.scheduleSupervision();
  }

  private scheduleSupervision(): void {
    const interval = this.timings.supervisionIntervalMs;
    this.nextSupervisionAt = interval > 0 ? tick() + interval : Infinity;
  }
}

/** Monotonic time for scheduling: a wall-clock step (NTP, a NAK-taught offset) must not stall or rush the loop. */
function tick(): number {
  return performance.now();
}
