/**
 * The timings of an output's sending discipline. Protocol constants come from the standards (MLR2: ACK within 4 s,
 * 3 retries, heartbeat about every 30 s); DC-09 timings come from the `sia_dc09` block (docs/outputs.md §Settings).
 */
import type { OutputSettings } from '../settings/schema-outputs.js';

export interface OutputTimings {
  /** Wait for the ACK of one transmission (MLR2: 4000; DC-09: sia_dc09.ack_timeout_ms). */
  readonly ackTimeoutMs: number;
  /** Transmissions after the first before the output fails (MLR2: 3; DC-09: sia_dc09.retries). */
  readonly retries: number;
  /** Heartbeat / link test period while healthy; 0 = none (MLR2: 30 000; DC-09: link_test_interval_s). */
  readonly supervisionIntervalMs: number;
  /**
   * While failed: the first wait before a probe (a connect attempt while the link is down, else one
   * heartbeat / NULL message); it doubles after each failed heartbeat up to probeMaxMs. Connect
   * attempts keep the first wait (docs/outputs.md §Failed state).
   */
  readonly probeMinMs: number;
  readonly probeMaxMs: number;
  /** First reconnect delay after the link dropped while idle; doubles up to probeMaxMs. */
  readonly reconnectDelayMs: number;
  /** Journal re-check while idle, in case a new-event signal was missed or none is wired. */
  readonly pollIntervalMs: number;
  /** The cursor is persisted at least this often while it moves. */
  readonly cursorFlushMs: number;
  /** Backlog count and metrics refresh. */
  readonly metricsIntervalMs: number;
  /** TCP server output (type 5): no client connected for this long fails the output (tcp_server.no_client_failed_s). */
  readonly noClientFailMs: number;
}

/** MLR2-DG manual: ACK within 4 s, the signal is sent again three times, heartbeat about every 30 s. */
export const MLR2_TIMINGS = { ackTimeoutMs: 4000, retries: 3, supervisionIntervalMs: 30_000 } as const;

/**
 * ADEMCO No. 685 Installation Instructions, "Computer interface": the computer ACKs within 2 s; without an ACK after
 * the second transmission the computer is in fault; the periodic test message goes out after about 45 s without
 * messages. (MX8000 §8.9.6, the same rule: "after two NACKs or two ACK timeouts ... Computer Trouble".)
 */
export const ADEMCO_685_TIMINGS = { ackTimeoutMs: 2000, retries: 1, supervisionIntervalMs: 45_000 } as const;

/**
 * Probing while failed (Vigil's rule, not the manuals'): 1 s, doubling to 8 s between heartbeats,
 * and a connect attempt every second while the link is down, so delivery resumes within about
 * 2 s of the automation software accepting connections again (docs/outputs.md §Failed state).
 */
const PROBE_TIMINGS = { probeMinMs: 1000, probeMaxMs: 8000 } as const;

/**
 * The JSON server protocol's own rule (Vigil's, docs/outputs.md §JSON server): ACK within 5 s, 3 retries, a heartbeat
 * line after 30 s of idleness.
 */
export const JSON_TIMINGS = { ackTimeoutMs: 5000, retries: 3, supervisionIntervalMs: 30_000 } as const;

/** TCP server output: no automation client for a minute fails it (tcp_server.no_client_failed_s default). */
const NO_CLIENT_FAIL_MS = 60_000;

const COMMON_TIMINGS = {
  reconnectDelayMs: 1000,
  noClientFailMs: NO_CLIENT_FAIL_MS,
  pollIntervalMs: 1000,
  cursorFlushMs: 500,
  metricsIntervalMs: 1000,
  ...PROBE_TIMINGS,
} as const;

export function outputTimings(settings: OutputSettings): OutputTimings {
  const common = settings.tcp_server
    ? { ...COMMON_TIMINGS, noClientFailMs: settings.tcp_server.no_client_failed_s * 1000 }
    : COMMON_TIMINGS;
  if (settings.protocol === 'JSON') return { ...JSON_TIMINGS, ...common };
  if (settings.protocol === 'ADEMCO-685') return { ...ADEMCO_685_TIMINGS, ...common };
  if (settings.protocol !== 'SIA-DC09' || !settings.sia_dc09) return { ...MLR2_TIMINGS, ...common };
  const sia = settings.sia_dc09;
  const linkTestMs = sia.link_test_interval_s * 1000;
  return {
    ackTimeoutMs: sia.ack_timeout_ms,
    retries: sia.retries,
    supervisionIntervalMs: linkTestMs,
    ...common,
  };
}
