/**
 * Runtime limits of the IP receivers. They are not in the settings contract; the defaults are
 * Vigil's decisions (docs/receivers.md §Limits) and tests inject smaller values.
 */
import { DEVICE_REPLY_TIMEOUT_MS } from '../core/device-commands.js';

export interface ReceiverOptions {
  /** A TCP connection with no byte received for this long is closed (devices reconnect). */
  readonly idleTimeoutMs: number;
  /** TCP keep-alive probe delay: finds peers that vanished without a FIN (NAT, power loss). */
  readonly keepAliveMs: number;
  /** Open TCP connections per receiver; more are refused at accept. */
  readonly maxConnections: number;
  /** Frames of one TCP connection (or datagrams of one UDP receiver) awaiting their commit before reading pauses. */
  readonly maxInFlight: number;
  /** Device-link command deadline (management API §Limits: 10 s). */
  readonly commandTimeoutMs: number;
  /** How often the counters are copied to the health registry. */
  readonly metricsIntervalMs: number;
  /** How long stop() waits for connections to take their last ACKs before destroying them. */
  readonly closeGraceMs: number;
  /**
   * TCP connections all receivers may hold together (connection-budget.ts); null: the process's
   * open-files limit less a reserve (fd-limit.ts), read when the receivers are first built.
   */
  readonly connectionBudget: number | null;
  /** How often the per-source tables drop the sources they no longer need (source-table.ts). */
  readonly sourceSweepMs: number;
}

export const DEFAULT_RECEIVER_OPTIONS: ReceiverOptions = Object.freeze({
  idleTimeoutMs: 10 * 60_000,
  keepAliveMs: 60_000,
  maxConnections: 20_000,
  maxInFlight: 256,
  commandTimeoutMs: DEVICE_REPLY_TIMEOUT_MS,
  metricsIntervalMs: 1000,
  closeGraceMs: 500,
  connectionBudget: null,
  sourceSweepMs: 10_000,
});

/** UDP: datagrams of the whole receiver awaiting commit before new ones are dropped unanswered. */
export const UDP_MAX_IN_FLIGHT_FACTOR = 16;

export function receiverOptions(overrides: Partial<ReceiverOptions> = {}): ReceiverOptions {
  return { ...DEFAULT_RECEIVER_OPTIONS, ...overrides };
}
