/**
 * A fleet of simulated devices against one gateway address: the library entry point for tests,
 * benchmarks and `vigil sim`. Bounded: a run ends when its duration has passed (or when the event
 * budget is spent and everything was answered), then waits at most drainMs for outstanding
 * replies, then closes every socket. start() binds nothing; devices connect at connectRate.
 *
 *   const sim = new Simulator(resolveSimOptions({ port, devices: 100, saturate: true }), { logger });
 *   const summary = await sim.run();
 */
import { systemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import type { AckRecord, CommandRecord, DeviceSetup, SimDevice } from './device-core.js';
import type { DeviceKeyring } from './link-handshake.js';
import { EventBudget } from './event-budget.js';
import { deviceAccount, deviceUid } from './identity.js';
import type { SimOptions } from './sim-options.js';
import { progressLine, SimStats, summarise, type SimSummary } from './sim-stats.js';
import { TcpDevice } from './tcp-device.js';
import { UdpDevice } from './udp-device.js';

/** How often deadlines, link tests and the end conditions are checked. */
const SWEEP_MS = 50;
/** Devices are started in steps of this period when a connect rate is set (each step catches up on the clock). */
const START_STEP_MS = 10;

export interface SimulatorDeps {
  readonly logger?: Logger;
  /** Host wall clock (DC-09 timestamps); tests fix it. */
  readonly clock?: Clock;
  /** Pad bytes for encryption; tests fix them to get exact frames. */
  readonly randomBytes?: RandomBytes;
  /** Called every progressIntervalMs with one summary line. */
  readonly onProgress?: (line: string) => void;
  readonly progressIntervalMs?: number;
  /** Each answered device-link command, with the time the device itself held it. */
  readonly onCommand?: (record: CommandRecord) => void;
  /** Each ACKed event: account, sequence and data (tests compare them with the journal). */
  readonly onAck?: (record: AckRecord) => void;
  /** Device-link keys by UID to start from (and that enrolments add to); a new empty one by default. */
  readonly keyring?: DeviceKeyring;
}

type State = 'new' | 'running' | 'draining' | 'done';

export class Simulator {
  readonly options: SimOptions;
  readonly stats = new SimStats();
  /**
   * The devices' link keys by UID (docs/simulator.md §Device keys): filled by enrolment, or given
   * (`deps.keyring`, `vigil sim --device-keys`) so a later run proves the keys an earlier one enrolled.
   */
  readonly keyring: DeviceKeyring;
  private readonly deps: SimulatorDeps;
  private readonly budget: EventBudget;
  private readonly devices: SimDevice[] = [];
  private state: State = 'new';
  private started = 0;
  private startedAt = 0;
  private drainDeadline = 0;
  private endedAt = 0;
  private timers: NodeJS.Timeout[] = [];
  private summary: SimSummary | null = null;
  private readonly finishedPromise: Promise<SimSummary>;
  private resolveFinished: (summary: SimSummary) => void = () => undefined;

  constructor(options: SimOptions, deps: SimulatorDeps = {}) {
    this.options = options;
    this.keyring = deps.keyring ?? new Map();
    this.deps = deps;
    this.budget = new EventBudget(options.maxEvents);
    this.finishedPromise = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  /** Devices started so far (connect rate) and devices whose transport is open. */
  get progress(): { started: number; connected: number } {
    return { started: this.started, connected: this.stats.connected };
  }

  /** Resolves with the summary once the run is over (duration, budget or stop()). */
  finished(): Promise<SimSummary> {
    return this.finishedPromise;
  }

  start(): void {
    if (this.state !== 'new') return;
    this.state = 'running';
    const o = this.options;
    const logger = this.deps.logger ?? silentLogger;
    for (let i = 0; i < o.devices; i++) this.devices.push(this.createDevice(i, logger));
    this.startedAt = performance.now();
    // On the clock, not per timer: a late step (a busy event loop) starts what was due meanwhile, so
    // the fleet connects at connectRate (a storm's defining figure) whatever the timers do.
    const due = (): number =>
      o.connectRate === 0
        ? o.devices
        : Math.max(1, Math.ceil(((performance.now() - this.startedAt + START_STEP_MS) * o.connectRate) / 1000));
    this.startSome(due() - this.started);
    if (this.started < o.devices) {
      const starter = setInterval(() => {
        this.startSome(due() - this.started);
        if (this.started >= o.devices) clearInterval(starter);
      }, START_STEP_MS);
      this.timers.push(starter);
    }
    this.every(SWEEP_MS, () => this.sweep());
    this.timers.push(setTimeout(() => this.beginDrain(), o.durationMs));
    const progress = this.deps.onProgress;
    if (progress) {
      const interval = this.deps.progressIntervalMs ?? 1000;
      let last = { at: this.startedAt, acked: 0 };
      this.every(interval, () => {
        const now = performance.now();
        progress(
          progressLine(this.stats, {
            elapsedMs: now - this.startedAt,
            devices: o.devices,
            ackedBefore: last.acked,
            intervalMs: now - last.at,
          }),
        );
        last = { at: now, acked: this.stats.eventsAcked };
      });
    }
  }

  /** start() and wait for the end of the run. */
  run(): Promise<SimSummary> {
    this.start();
    return this.finished();
  }

  /** Ends the run now: no drain, outstanding messages are counted as unanswered. */
  stop(): Promise<SimSummary> {
    if (this.state === 'new') this.state = 'running';
    this.finish();
    return this.finished();
  }

  /** Polls (bounded by timeoutMs) until `count` devices have their transport open. */
  async waitConnected(count: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (this.stats.connected >= count) return true;
      if (this.state === 'done') return false;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.stats.connected >= count;
  }

  private createDevice(index: number, logger: Logger): SimDevice {
    const o = this.options;
    const local = o.localAddresses.length > 0 ? o.localAddresses[index % o.localAddresses.length]! : null;
    const setup: DeviceSetup = {
      index,
      account: deviceAccount(o.accountBase, index),
      uid: deviceUid(o.uidBase, index),
      localAddress: local,
      options: o,
      stats: this.stats,
      budget: this.budget,
      hostClock: this.deps.clock ?? systemClock,
      monotonic: () => performance.now(),
      logger,
      keyring: this.keyring,
      ...(this.deps.randomBytes ? { randomBytes: this.deps.randomBytes } : {}),
      ...(this.deps.onCommand ? { onCommand: this.deps.onCommand } : {}),
      ...(this.deps.onAck ? { onAck: this.deps.onAck } : {}),
    };
    return o.transport === 'tcp' ? new TcpDevice(setup) : new UdpDevice(setup);
  }

  private every(ms: number, fn: () => void): void {
    this.timers.push(setInterval(fn, ms));
  }

  private startSome(count: number): void {
    if (this.state !== 'running') return;
    const end = Math.min(this.devices.length, this.started + count);
    for (; this.started < end; this.started++) this.devices[this.started]!.start();
  }

  private sweep(): void {
    const now = performance.now();
    for (let i = 0; i < this.started; i++) this.devices[i]!.tick(now);
    if (this.state === 'running' && this.budget.exhausted && this.allIdle()) this.beginDrain();
    if (this.state === 'draining' && (now >= this.drainDeadline || this.allIdle())) this.finish();
  }

  private allIdle(): boolean {
    for (let i = 0; i < this.started; i++) if (!this.devices[i]!.idle) return false;
    return this.started === this.devices.length;
  }

  private beginDrain(): void {
    if (this.state !== 'running') return;
    this.state = 'draining';
    this.endedAt = performance.now();
    this.budget.close();
    for (let i = 0; i < this.started; i++) this.devices[i]!.drain();
    this.drainDeadline = this.endedAt + this.options.drainMs;
    if (this.allIdle() || this.options.drainMs === 0) this.finish();
  }

  private finish(): void {
    if (this.state === 'done' || this.state === 'new') return;
    if (this.state === 'running') this.endedAt = performance.now();
    this.state = 'done';
    this.budget.close();
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    for (let i = 0; i < this.started; i++) this.devices[i]!.close();
    // Sending time: from the start to the end of the duration (or of the budget), drain excluded.
    this.summary = summarise(this.stats, {
      transport: this.options.transport,
      devices: this.options.devices,
      elapsedMs: Math.max(1, this.endedAt - this.startedAt),
    });
    this.resolveFinished(this.summary);
  }
}
