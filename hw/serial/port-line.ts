/**
 * One serial device kept open with serialport 13 (the SerialLine of src/core/serial.ts). It opens
 * in start(); when the device fails or disappears (USB adapter pulled: serialport closes it with
 * `disconnected`; a pty whose other end closed: EIO) it is reopened with backoff, 1 s doubling to
 * 30 s (reset once it opens), so a re-plugged adapter comes back by itself. serialport does not always notice
 * a vanished device (a pty whose master closed can stay silent), so every metrics tick also checks that the path
 * still names the device that was opened (same st_rdev): gone or replaced is lost. Health component
 * `serial:<path>`: starting -> ok while open, failed while not (the detail says why and when the
 * next attempt is). docs/serial.md.
 */
import { stat } from 'node:fs/promises';
import { SerialPort } from 'serialport';
import { TypedBus } from '../../src/core/bus.js';
import { VigilError, describeError } from '../../src/core/errors.js';
import type { HealthRegistry } from '../../src/core/health.js';
import type { Logger } from '../../src/core/logger.js';
import type { SerialLine, SerialLineCounters, SerialLineEvents, SerialLineOptions } from '../../src/core/serial.js';

export interface PortLineDeps {
  readonly health: HealthRegistry;
  readonly logger: Logger;
  /** Reopen backoff (tests shorten it). */
  readonly backoffMinMs?: number;
  readonly backoffMaxMs?: number;
  /** How often the counters are copied to the health entry. */
  readonly metricsIntervalMs?: number;
}

export const BACKOFF_MIN_MS = 1000;
export const BACKOFF_MAX_MS = 30_000;
/** A pseudo-terminal (and some adapters) has no modem-control lines: the kernel answers ENOTTY. */
const NO_MODEM_LINES = /Inappropriate ioctl/i;

export class PortLine implements SerialLine {
  readonly path: string;
  readonly healthName: string;
  readonly counters: SerialLineCounters = { bytesIn: 0, bytesOut: 0, framingErrors: 0, reopens: 0 };
  private readonly options: SerialLineOptions;
  private readonly deps: PortLineDeps;
  private readonly logger: Logger;
  private readonly events: TypedBus<SerialLineEvents>;
  private port: SerialPort | null = null;
  private running = false;
  private paused = false;
  private everOpened = false;
  private delayMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  /** st_rdev of the device node the open port is, to notice it vanished or was replaced. */
  private openedDevice: number | null = null;
  private metricsTimer: NodeJS.Timeout | null = null;

  constructor(options: SerialLineOptions, deps: PortLineDeps) {
    this.options = options;
    this.deps = deps;
    this.path = options.path;
    this.healthName = `serial:${options.path}`;
    this.logger = deps.logger.child(`serial:${options.path}`);
    this.events = new TypedBus<SerialLineEvents>(this.logger);
    this.delayMs = deps.backoffMinMs ?? BACKOFF_MIN_MS;
  }

  get isOpen(): boolean {
    return this.port !== null;
  }

  on<K extends keyof SerialLineEvents>(event: K, listener: (value: SerialLineEvents[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.deps.health.report(this.healthName, 'serial-port', 'starting', null, this.metrics());
    this.metricsTimer = setInterval(() => this.tick(), this.deps.metricsIntervalMs ?? 1000);
    this.metricsTimer.unref();
    await this.attempt();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.metricsTimer) clearInterval(this.metricsTimer);
    this.retryTimer = this.metricsTimer = null;
    await this.closePort();
    this.deps.health.remove(this.healthName);
  }

  write(data: Buffer): boolean {
    const port = this.port;
    if (!port) return false;
    this.counters.bytesOut += data.length;
    return port.write(data);
  }

  pause(): void {
    this.paused = true;
    this.port?.pause();
  }

  resume(): void {
    this.paused = false;
    this.port?.resume();
  }

  countFramingErrors(count: number): void {
    this.counters.framingErrors += count;
  }

  reopen(reason: string): void {
    if (!this.running) return;
    this.logger.warn('reopening on request', { reason });
    void this.closePort().then(() => this.lost(`reopen requested: ${reason}`));
  }

  async setControl(lines: { dtr?: boolean; rts?: boolean }): Promise<void> {
    const port = this.port;
    if (!port) throw new VigilError('SERVICE_FAILED', `${this.path} is not open`);
    await new Promise<void>((resolve, reject) => {
      port.set(lines, (err) => {
        if (!err || NO_MODEM_LINES.test(err.message)) resolve();
        else
          reject(
            new VigilError('SERVICE_FAILED', `${this.path}: cannot set modem lines: ${describeError(err)}`, [], {
              cause: err,
            }),
          );
      });
    });
  }

  private async attempt(): Promise<void> {
    this.retryTimer = null;
    if (!this.running || this.port) return;
    const o = this.options;
    const port = new SerialPort({
      path: o.path,
      baudRate: o.baudRate,
      dataBits: o.dataBits,
      parity: o.parity,
      stopBits: o.stopBits,
      rtscts: o.flowControl === 'rts-cts',
      autoOpen: false,
    });
    try {
      await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    } catch (err) {
      this.schedule(`cannot open: ${describeError(err)}`);
      return;
    }
    if (!this.running) {
      port.close(() => undefined);
      return;
    }
    this.openedDevice = await deviceOf(o.path);
    this.attach(port);
  }

  private attach(port: SerialPort): void {
    this.port = port;
    if (this.everOpened) this.counters.reopens++;
    this.everOpened = true;
    this.delayMs = this.deps.backoffMinMs ?? BACKOFF_MIN_MS;
    port.on('data', (chunk: Buffer) => {
      this.counters.bytesIn += chunk.length;
      this.events.emit('data', chunk);
    });
    port.on('drain', () => this.events.emit('drain', undefined));
    // An I/O error without a close still leaves the descriptor unusable: close it and reopen.
    port.on('error', (err) => {
      if (this.port !== port) return;
      this.logger.warn('port error', { error: describeError(err) });
      void this.closePort().then(() => this.lost(describeError(err)));
    });
    port.on('close', (err: (Error & { disconnected?: boolean }) | null) => {
      if (this.port !== port) return;
      this.port = null;
      this.lost(err?.disconnected ? 'device disconnected' : err ? describeError(err) : 'closed');
    });
    if (this.paused) port.pause();
    this.deps.health.report(this.healthName, 'serial-port', 'ok', null, this.metrics());
    this.logger.info('port open', {
      owner: this.options.owner,
      baud: this.options.baudRate,
      reopens: this.counters.reopens,
    });
    this.events.emit('open', undefined);
  }

  private lost(reason: string): void {
    if (!this.running) return;
    this.logger.warn('port lost', { reason });
    this.events.emit('lost', reason);
    this.schedule(reason);
  }

  private schedule(reason: string): void {
    if (!this.running || this.retryTimer) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(delay * 2, this.deps.backoffMaxMs ?? BACKOFF_MAX_MS);
    const detail = `${reason}; next attempt in ${delay >= 1000 ? `${Math.round(delay / 1000)} s` : `${delay} ms`}`;
    this.deps.health.report(this.healthName, 'serial-port', 'failed', detail, this.metrics());
    this.retryTimer = setTimeout(() => void this.attempt(), delay);
    this.retryTimer.unref();
  }

  private closePort(): Promise<void> {
    const port = this.port;
    this.port = null;
    if (!port) return Promise.resolve();
    port.removeAllListeners('data');
    port.removeAllListeners('close');
    port.on('error', () => undefined);
    return new Promise((resolve) => port.close(() => resolve()));
  }

  private metrics(): Record<string, string | number | boolean | null> {
    const c = this.counters;
    const metrics: Record<string, string | number | boolean | null> = {
      bytes_in: c.bytesIn,
      bytes_out: c.bytesOut,
      framing_errors: c.framingErrors,
      reopens: c.reopens,
      open: this.port !== null,
      baud_rate: this.options.baudRate,
      owner: this.options.owner,
    };
    if (this.options.receiverId !== undefined) metrics.receiver_id = this.options.receiverId;
    return metrics;
  }

  private publish(): void {
    this.deps.health.setMetrics(this.healthName, this.metrics());
  }

  private tick(): void {
    this.publish();
    const port = this.port;
    if (!port || this.openedDevice === null) return;
    void deviceOf(this.path).then((device) => {
      if (this.port !== port || device === this.openedDevice) return;
      void this.closePort().then(() => this.lost(device === null ? 'device disappeared' : 'device replaced'));
    });
  }
}

/** st_rdev of the device a path names now (following links); null when it does not exist. */
async function deviceOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).rdev;
  } catch {
    return null;
  }
}
