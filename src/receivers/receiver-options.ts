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
   * Sockets every door may hold together (`admission.max_sockets`) when the runtime makes its own
   * admission component (tests of the receivers alone); null: the open-files limit less a reserve
   * (core/admission/fd-limit.ts). The gateway's comes from the settings section `admission`.
   */
  readonly connectionBudget: number | null;
  /** How often each receiver's door forgets the sources that have their whole allowance again (core/admission/rate-table.ts). */
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
