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
  /** Period of the supervision probes while failed. */
  readonly probeIntervalMs: number;
  /** First reconnect delay after the link dropped while idle; doubles up to probeIntervalMs. */
  readonly reconnectDelayMs: number;
  /** Journal re-check while idle, in case a new-event signal was missed or none is wired. */
  readonly pollIntervalMs: number;
  /** The cursor is persisted at least this often while it moves. */
  readonly cursorFlushMs: number;
  /** Backlog count and metrics refresh. */
  readonly metricsIntervalMs: number;
}

/** MLR2-DG manual: ACK within 4 s, the signal is sent again three times, heartbeat about every 30 s. */
export const MLR2_TIMINGS = { ackTimeoutMs: 4000, retries: 3, supervisionIntervalMs: 30_000, probeIntervalMs: 30_000 } as const;

const COMMON_TIMINGS = { reconnectDelayMs: 1000, pollIntervalMs: 1000, cursorFlushMs: 500, metricsIntervalMs: 1000 } as const;

/** While failed, a DC-09 output probes at its link-test period, but at least every 30 s (and every 30 s when off). */
const MAX_PROBE_INTERVAL_MS = 30_000;

export function outputTimings(settings: OutputSettings): OutputTimings {
  if (settings.protocol !== 'SIA-DC09' || !settings.sia_dc09) return { ...MLR2_TIMINGS, ...COMMON_TIMINGS };
  const sia = settings.sia_dc09;
  const linkTestMs = sia.link_test_interval_s * 1000;
  return {
    ackTimeoutMs: sia.ack_timeout_ms,
    retries: sia.retries,
    supervisionIntervalMs: linkTestMs,
    probeIntervalMs: linkTestMs > 0 ? Math.min(linkTestMs, MAX_PROBE_INTERVAL_MS) : MAX_PROBE_INTERVAL_MS,
    ...COMMON_TIMINGS,
  };
}
