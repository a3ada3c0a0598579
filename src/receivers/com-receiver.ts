/**
 * A COM receiver (settings `com_receivers[]`, docs/serial.md): transport only. Its serial line (the port layer in
 * hw/serial, passed in as a SerialLineFactory) is a stream channel into one receiver session per time the device is
 * open; the receiver's `protocol` picks the rules:
 *   - `SIA-DC09`: DC-09 frames exactly as on TCP (Dc09Rules: CRC, AES with `encryption_password`, time window,
 *     ACK/NAK/DUH written back on the line after the commit);
 *   - `MLR2`: Vigil is the automation computer behind a legacy receiver (Mlr2Rules): ACK 0x06 after the commit, NAK
 *     0x15 for a malformed line; heartbeats keep the health `ok`, and none for `heartbeat_timeout_s` makes it
 *     `degraded` (an internal event, docs/internal-events.md §Health).
 * Health `rx:com:<id>`: ok while the device is open, failed while it is not (the port is reopened with backoff by the
 * line itself). No device link and no session rows on a serial line.
 */
import type { Logger } from '../core/logger.js';
import type { SerialLine, SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import type { ComReceiverSettings } from '../settings/schema-receivers.js';
import { FrameSession } from './frame-session.js';
import type { StreamChannel } from './frame-channel.js';
import { Mlr2Rules } from './mlr2-rules.js';
import type { ReceiverDeps } from './receiver-deps.js';
import { Dc09Rules } from './dc09-rules.js';
import { ReceiverCounters } from './receiver-counters.js';
import type { FrameRules, SessionDeps } from './session-deps.js';

export interface ComReceiverDeps extends ReceiverDeps {
  readonly serial: SerialLineFactory;
}

export class ComReceiver implements Service {
  readonly name: string;
  readonly counters = new ReceiverCounters();
  private readonly settings: ComReceiverSettings;
  private readonly deps: ComReceiverDeps;
  private readonly logger: Logger;
  private readonly rules: FrameRules;
  /** Set for protocol MLR2: heartbeat supervision. */
  private readonly mlr2: Mlr2Rules | null;
  private readonly sessionDeps: SessionDeps;
  private line: SerialLine | null = null;
  private session: FrameSession | null = null;
  private unsubscribe: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private openedAt = 0;
  private silent = false;
  /** What the line's framing_errors already holds from this receiver. */
  private framingReported = 0;
  /** Bytes skipped by the framers of earlier sessions (the device was reopened). */
  private discardedBefore = 0;

  constructor(settings: ComReceiverSettings, deps: ComReceiverDeps) {
    this.settings = settings;
    this.deps = deps;
    this.name = `rx:com:${settings.id}`;
    this.logger = deps.logger.child(`com:${settings.id}`);
    this.mlr2 = settings.protocol === 'MLR2' ? new Mlr2Rules(settings.id) : null;
    this.rules = this.mlr2 ?? new Dc09Rules('com', settings);
    this.sessionDeps = {
      rules: this.rules,
      counters: this.counters,
      ingest: deps.ingest,
      links: deps.links,
      clock: deps.clock,
      logger: this.logger,
      maxInFlight: deps.options.maxInFlight,
    };
  }

  async start(): Promise<void> {
    if (this.line) return;
    const s = this.settings;
    this.deps.health.report(this.name, 'receiver', 'starting', null);
    const line = this.deps.serial({
      path: s.port_id,
      baudRate: s.baud_rate,
      dataBits: s.data_bits,
      parity: s.parity,
      stopBits: s.stop_bits,
      flowControl: s.flow_control,
      owner: this.name,
      receiverId: s.id,
    });
    this.line = line;
    this.unsubscribe = [
      line.on('open', () => this.opened(line)),
      line.on('data', (chunk) => this.session?.feed(chunk)),
      line.on('drain', () => this.session?.drained()),
      line.on('lost', (reason) => this.lost(reason)),
    ];
    this.timer = setInterval(() => this.tick(), this.deps.options.metricsIntervalMs);
    this.timer.unref();
    await line.start();
    if (!line.isOpen) this.lost(this.deps.health.get(line.healthName)?.detail ?? 'not open');
  }

  async stop(): Promise<void> {
    const line = this.line;
    if (!line) return;
    this.line = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    line.pause();
    // Lines already read get committed and answered before the port closes.
    this.deps.ingest.drain();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.closeSession();
    for (const off of this.unsubscribe.splice(0)) off();
    this.publish(line);
    await line.stop();
    // Removed, not 'stopped' (as the IP receivers): restart-services reports it 'starting' again at once.
    this.deps.health.remove(this.name);
    this.logger.info('receiver stopped');
  }

  private opened(line: SerialLine): void {
    this.closeSession();
    const channel: StreamChannel = {
      framing: 'stream',
      transport: 'serial',
      remoteAddress: this.settings.port_id,
      sessionRows: false,
      write: (data) => line.write(data),
      pause: () => line.pause(),
      resume: () => line.resume(),
    };
    this.session = new FrameSession(channel, this.sessionDeps);
    this.counters.connections = 1;
    this.counters.accepted++;
    this.openedAt = this.deps.clock.now();
    this.silent = false;
    this.deps.health.report(this.name, 'receiver', 'ok', null);
    this.logger.info('receiver open', {
      port: this.settings.port_id,
      protocol: this.settings.protocol,
      name: this.settings.name,
    });
  }

  /** The device is gone: what was read and not yet answered cannot be answered (the sender repeats it). */
  private lost(reason: string): void {
    this.closeSession();
    if (this.line) this.deps.health.report(this.name, 'receiver', 'failed', `port ${this.settings.port_id}: ${reason}`);
  }

  private closeSession(): void {
    const session = this.session;
    if (!session) return;
    this.session = null;
    this.counters.connections = 0;
    this.reportFraming();
    this.discardedBefore += session.discardedBytes;
    session.close();
  }

  private tick(): void {
    const line = this.line;
    if (!line) return;
    this.reportFraming();
    this.superviseHeartbeat(line);
    this.publish(line);
  }

  /** MLR2: a line open but silent (no heartbeat, no message) for heartbeat_timeout_s is degraded. */
  private superviseHeartbeat(line: SerialLine): void {
    const rules = this.mlr2;
    if (!rules || !line.isOpen || !this.session) return;
    const now = this.deps.clock.now();
    const last = Math.max(rules.lastAlive ?? 0, this.openedAt);
    const silentMs = now - last;
    const limitMs = this.settings.heartbeat_timeout_s * 1000;
    if (silentMs > limitMs && !this.silent) {
      this.silent = true;
      const detail = `no heartbeat for ${Math.round(silentMs / 1000)} s (limit ${this.settings.heartbeat_timeout_s} s)`;
      this.deps.health.report(this.name, 'receiver', 'degraded', detail);
      this.logger.warn('line silent', { port: this.settings.port_id, silent_s: Math.round(silentMs / 1000) });
    } else if (silentMs <= limitMs && this.silent) {
      this.silent = false;
      this.deps.health.report(this.name, 'receiver', 'ok', null);
      this.logger.info('line alive again', { port: this.settings.port_id });
    }
  }

  /** Frames the framer rejected, and MLR2 lines NAKed as malformed, count as the port's framing errors. */
  private reportFraming(): void {
    const total = this.counters.rejected + (this.mlr2 ? this.counters.naks : 0);
    if (total > this.framingReported) this.line?.countFramingErrors(total - this.framingReported);
    this.framingReported = total;
  }

  private publish(line: SerialLine): void {
    this.counters.publish(this.deps.health, this.name, line.isOpen ? this.settings.port_id : null);
    const extra: Record<string, string | number | boolean | null> = {
      protocol: this.settings.protocol,
      discarded_bytes: this.discardedBefore + (this.session?.discardedBytes ?? 0),
    };
    if (this.mlr2) {
      extra.heartbeats = this.mlr2.heartbeats;
      extra.last_alive_at = this.mlr2.lastAlive === null ? null : new Date(this.mlr2.lastAlive).toISOString();
    }
    this.deps.health.setMetrics(this.name, extra);
  }
}
