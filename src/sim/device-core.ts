/**
 * What every simulated device has whatever its transport: identity, clock, transmitter, event
 * pacing and the NULL link-test schedule. The transport (tcp-device.ts, udp-device.ts) owns the
 * socket, opens and closes the transmitter's path and hands it replies.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import { DeviceClock } from './device-clock.js';
import type { DeviceKeyring } from './link-handshake.js';
import type { EventBudget } from './event-budget.js';
import { eventData } from './event-data.js';
import { Pacer } from './pacer.js';
import { SIM_LIMITS, type SimOptions } from './sim-options.js';
import type { SimStats } from './sim-stats.js';
import { Transmitter } from './transmitter.js';

export interface DeviceSetup {
  /** 0-based position in the fleet. */
  readonly index: number;
  readonly account: string;
  readonly uid: string;
  /** Source address for this device's socket; null lets the kernel choose. */
  readonly localAddress: string | null;
  readonly options: SimOptions;
  readonly stats: SimStats;
  readonly budget: EventBudget;
  /** Host wall clock; each device adds its own skew. */
  readonly hostClock: Clock;
  readonly monotonic: () => number;
  readonly randomBytes?: RandomBytes;
  /** The fleet's device-link keys by UID, shared by the run's devices (enrolment fills it). */
  readonly keyring: DeviceKeyring;
  readonly logger: Logger;
  /** Told after each command was answered: how long the device itself held it (benches subtract it). */
  readonly onCommand?: (record: CommandRecord) => void;
  /** Told about each ACKed event. */
  readonly onAck?: (record: AckRecord) => void;
}

export interface AckRecord {
  readonly account: string;
  readonly sequence: string;
  /** The data block the event carried. */
  readonly data: string;
}

export interface CommandRecord {
  readonly uid: string;
  readonly seq: number;
  readonly kind: 'control' | 'config';
  /** Monotonic ms: the command was decoded / the last reply packet was written. */
  readonly receivedAt: number;
  readonly repliedAt: number;
  readonly packets: number;
}

/** A device as the fleet drives it. */
export interface SimDevice {
  start(): void;
  /** Deadlines and link tests; `now` is monotonic ms. */
  tick(now: number): void;
  /** Stop producing messages; outstanding ones may still be answered. */
  drain(): void;
  /** Nothing outstanding. */
  readonly idle: boolean;
  /** Close the transport for good; outstanding messages are counted as unanswered. */
  close(): void;
}

/** Spreads phases evenly whatever the fleet size (golden-ratio sequence), deterministic per index. */
export function phaseOf(index: number): number {
  return (index * 0.6180339887498949) % 1;
}

export class DeviceCore {
  readonly setup: DeviceSetup;
  readonly clock: DeviceClock;
  readonly tx: Transmitter;
  private readonly pacer: Pacer | null;
  private nextLinkTest = Number.POSITIVE_INFINITY;
  /** A storm's restore (options.restoreAfterMs): monotonic ms when it is due; null when none is (any more). */
  private restoreAt: number | null = null;

  constructor(setup: DeviceSetup, send: (frame: Buffer) => boolean) {
    this.setup = setup;
    const o = setup.options;
    this.clock = new DeviceClock(setup.hostClock, o.clockSkewMs);
    this.tx = new Transmitter(
      {
        header: {
          token: o.token,
          codes: o.codes,
          account: setup.account,
          receiver: o.receiver,
          line: o.line,
          key: o.key,
          timestamps: o.timestamps,
        },
        window: o.window,
        ackTimeoutMs: o.ackTimeoutMs,
        maxRetries: o.maxRetries,
        saturate: o.saturate,
        maxQueue: SIM_LIMITS.maxQueuePerDevice,
      },
      {
        stats: setup.stats,
        budget: setup.budget,
        clock: this.clock,
        monotonic: setup.monotonic,
        send,
        ...(setup.randomBytes ? { randomBytes: setup.randomBytes } : {}),
        ...(setup.onAck ? { onAck: (sequence: string, n: number) => this.reportAck(sequence, n) } : {}),
      },
    );
    this.pacer =
      o.ratePerDevice > 0 ? new Pacer(o.ratePerDevice, (n) => this.tx.enqueueEvents(n), setup.monotonic) : null;
  }

  /** Starts pacing (or the storm's alarm and restore) and the link-test schedule at this device's phase. */
  begin(): void {
    const phase = phaseOf(this.setup.index);
    this.pacer?.start(phase);
    const restoreAfter = this.setup.options.restoreAfterMs;
    if (restoreAfter > 0) {
      // The alarm waits in the transmitter until the connection is up; the restore follows on the clock.
      this.restoreAt = this.setup.monotonic() + restoreAfter;
      this.tx.enqueueEvents(1);
    }
    const interval = this.setup.options.linkTestIntervalMs;
    if (interval > 0) this.nextLinkTest = this.setup.monotonic() + interval * phase;
  }

  tick(now: number): void {
    if (this.restoreAt !== null && now >= this.restoreAt) {
      this.restoreAt = null;
      this.tx.enqueueEvents(1);
    }
    if (now >= this.nextLinkTest) {
      this.nextLinkTest = now + this.setup.options.linkTestIntervalMs;
      this.tx.requestLinkTest();
    }
    this.tx.tick(now);
  }

  drain(): void {
    this.pacer?.stop();
    this.restoreAt = null;
    this.nextLinkTest = Number.POSITIVE_INFINITY;
    this.tx.drain();
  }

  private reportAck(sequence: string, n: number): void {
    const { account, options, onAck } = this.setup;
    onAck?.({ account, sequence, data: eventData(options.token, account, n, options.codes) });
  }

  finish(): void {
    this.drain();
    this.setup.stats.unanswered += this.tx.abandon();
  }
}
