/**
 * Runs every output in one worker thread (src/outputs/worker/output-worker.ts) and stands for them in the main
 * thread's services group (docs/outputs.md §Threads). The rule has no exception: the main thread runs the receivers
 * (framing, DC-09 decisions, ACKs, the bus's listeners) and the API; an output there would put its synchronous
 * journal reads on that event loop and take one of its turns per message round trip (MLR2 sends one line per ACK).
 * In its own thread, with its own query-only SQLite connection (WAL: readers never wait for the writer), an output
 * drains at network speed and never delays an ACK. The worker opens no device: a serial output's line is this
 * thread's serial port layer's (serialport's native poller cannot serve two threads of one process), relayed to
 * the worker (serial-link-host.ts here, worker/relayed-link.ts there).
 *
 * The host relays the worker's health reports to the real HealthRegistry (`out:<id>`), its log lines to the
 * logger, and "new events were journaled" to the worker (coalesced: one message per burst). A worker that dies is
 * reported (every output `failed`) and started again with backoff.
 */
import { Worker } from 'node:worker_threads';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { LogLevel, Logger } from '../core/logger.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import type { OutputSettings } from '../settings/schema-outputs.js';
import type { ClientRefusal } from './build-outputs.js';
import type { OutputTimings } from './output-timings.js';
import { SerialLinkHost } from './serial-link-host.js';
import type { WriterEndpoint } from '../writer/command-channel.js';
import type { HostMessage, WorkerInit, WorkerMessage } from './worker/messages.js';

/** The store's single writer as the host sees it (src/writer/writer-proxy.ts WriterProxy). */
export interface WriterConnector {
  /** `listener` gets a channel now if the writer runs, a new one per writer thread, null while there is none. */
  connect(listener: (endpoint: WriterEndpoint | null) => void): () => void;
}

export interface OutputHostOptions {
  readonly dbPath: string;
  /** The single writer: the worker's cursor writes go to it (docs/store.md §One writer), its own connection only reads. */
  readonly writer: WriterConnector;
  readonly outputs: readonly OutputSettings[];
  readonly health: HealthRegistry;
  readonly logger: Logger;
  /** Lowest level the worker forwards (default 'info'). */
  readonly logLevel?: LogLevel;
  readonly onEventStored?: (listener: () => void) => () => void;
  /** Tests: shorter timings. */
  readonly timings?: Partial<OutputTimings>;
  /** general.instance_name (the `gateway` of webhook bodies). */
  readonly instanceName?: string;
  /** A TCP server output refused a client outside its allow-list (main.ts journals it, rate-limited). */
  readonly onClientRefused?: (refusal: ClientRefusal) => void;
  /** The serial port layer: the lines of serial (type 3) outputs are opened here and relayed to the worker. */
  readonly serialLines?: SerialLineFactory;
}

const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 15_000;
const RESPAWN_MIN_MS = 1000;
const RESPAWN_MAX_MS = 30_000;

export class OutputWorkerHost implements Service {
  readonly name = 'outputs';
  private readonly o: OutputHostOptions;
  private readonly enabled: readonly OutputSettings[];
  private readonly loggers = new Map<string, Logger>();
  private worker: Worker | null = null;
  private unsubscribe: (() => void) | null = null;
  private wakeQueued = false;
  private stopping = false;
  private respawnDelay = RESPAWN_MIN_MS;
  private respawnTimer: NodeJS.Timeout | null = null;
  private stoppedWaiter: (() => void) | null = null;
  private disconnectWriter: (() => void) | null = null;
  /** Serial outputs' lines, when the host has the serial port layer. */
  private readonly serialLinks: SerialLinkHost | null;

  constructor(options: OutputHostOptions) {
    this.o = options;
    this.enabled = options.outputs.filter((o) => o.enabled);
    const serial = options.serialLines;
    this.serialLinks = serial ? new SerialLinkHost(this.enabled, serial, (message) => this.send(message)) : null;
  }

  async start(): Promise<void> {
    if (this.worker || this.enabled.length === 0) return;
    this.stopping = false;
    this.unsubscribe = this.o.onEventStored?.(() => this.queueWake()) ?? null;
    await this.spawn();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.respawnTimer) clearTimeout(this.respawnTimer);
    this.respawnTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const worker = this.worker;
    this.disconnectWriter?.();
    this.disconnectWriter = null;
    if (worker) {
      const stopped = new Promise<void>((resolve) => (this.stoppedWaiter = resolve));
      this.send({ type: 'stop' });
      const clean = await Promise.race([stopped.then(() => true), delay(STOP_TIMEOUT_MS).then(() => false)]);
      if (!clean)
        this.o.logger.error('output worker did not stop in time; terminated', { timeout_ms: STOP_TIMEOUT_MS });
      this.worker = null;
      await worker.terminate();
    }
    await this.serialLinks?.closeAll();
    // Entries of a worker that died (or is waiting to be started again) must not linger in the registry.
    for (const output of this.enabled) this.o.health.remove(`out:${output.id}`);
  }

  private spawn(): Promise<void> {
    // The writer's channel for this worker: the first in its init, later ones (a new writer thread) by message.
    let first: WriterEndpoint | null = null;
    let spawned: Worker | null = null;
    this.disconnectWriter?.();
    this.disconnectWriter = this.o.writer.connect((endpoint) => {
      if (!spawned) first = endpoint;
      else spawned.postMessage({ type: 'writer', endpoint } satisfies HostMessage, endpoint ? [endpoint] : []);
    });
    const endpoint = first as WriterEndpoint | null;
    const init: WorkerInit = {
      dbPath: this.o.dbPath,
      ...(endpoint ? { endpoint } : {}),
      outputs: this.enabled,
      serial: this.serialLinks !== null,
      logLevel: this.o.logLevel ?? 'info',
      ...(this.o.timings ? { timings: this.o.timings } : {}),
      ...(this.o.instanceName !== undefined ? { instanceName: this.o.instanceName } : {}),
    };
    const worker = new Worker(new URL('./worker/output-worker.js', import.meta.url), {
      workerData: init,
      transferList: endpoint ? [endpoint] : [],
    });
    spawned = worker;
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      const timer = setTimeout(
        () => settle(new Error(`output worker not started within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'started') {
          this.respawnDelay = RESPAWN_MIN_MS;
          settle(null);
        } else if (message.type === 'start-failed') {
          this.o.logger.error('output worker cannot start', { error: message.error });
          settle(new Error(`output worker cannot start: ${message.error}`));
          // Its exit reports every output failed and schedules another attempt (the store may be busy).
          void worker.terminate();
        } else {
          this.onMessage(message);
        }
      });
      worker.on('error', (err) => this.o.logger.error('output worker error', { error: describeError(err) }));
      worker.on('exit', (code) => {
        settle(new Error(`output worker exited with code ${code} while starting`));
        this.onExit(worker, code);
      });
    });
  }

  private onMessage(message: WorkerMessage): void {
    const { health } = this.o;
    switch (message.type) {
      case 'report':
        health.report(message.name, message.kind, message.state, message.detail, message.metrics);
        break;
      case 'metrics':
        health.setMetrics(message.name, message.metrics);
        break;
      case 'remove':
        health.remove(message.name);
        break;
      case 'client-refused':
        this.o.onClientRefused?.({ output: message.output, remote: message.remote });
        break;
      case 'log':
        this.logger(message.namespace)[message.level](message.message, message.fields);
        break;
      case 'stopped':
        this.stoppedWaiter?.();
        this.stoppedWaiter = null;
        break;
      case 'link-connect':
      case 'link-write':
      case 'link-close':
        this.serialLinks?.handle(message);
        break;
      default:
        break;
    }
  }

  private onExit(worker: Worker, code: number): void {
    this.stoppedWaiter?.();
    this.stoppedWaiter = null;
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.stopping) return;
    // A new worker opens its serial outputs' lines again.
    void this.serialLinks?.closeAll();
    this.o.logger.error('output worker exited; starting it again', { code, delay_ms: this.respawnDelay });
    this.reportAll(`output worker exited with code ${code}`);
    this.respawnTimer = setTimeout(() => {
      this.respawnTimer = null;
      if (this.stopping) return;
      this.spawn().catch((err: unknown) =>
        this.o.logger.error('output worker restart failed', { error: describeError(err) }),
      );
    }, this.respawnDelay);
    this.respawnDelay = Math.min(this.respawnDelay * 2, RESPAWN_MAX_MS);
  }

  private reportAll(detail: string): void {
    for (const output of this.enabled) this.o.health.report(`out:${output.id}`, 'output', 'failed', detail);
  }

  /** One wake-up message per burst: the ingest emits `event-stored` once per journaled event. */
  private queueWake(): void {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    queueMicrotask(() => {
      this.wakeQueued = false;
      this.send({ type: 'wake' });
    });
  }

  private send(message: HostMessage): void {
    this.worker?.postMessage(message);
  }

  private logger(namespace: string): Logger {
    let logger = this.loggers.get(namespace);
    if (!logger) {
      logger = namespace ? this.o.logger.child(namespace) : this.o.logger;
      this.loggers.set(namespace, logger);
    }
    return logger;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
