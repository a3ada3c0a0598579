/**
 * Counters of one simulator run, shared by all its devices (plain fields: the hot path only
 * increments), the latency histograms, and the two outputs: a one-line progress report per
 * second and the final summary (snake_case JSON, docs/simulator.md §Output).
 */
import { LatencyHistogram } from './latency-histogram.js';

export class SimStats {
  /** Events transmitted for the first time. */
  eventsSent = 0;
  eventsAcked = 0;
  /** Events given up after the last retry (no ACK), or answered DUH. */
  eventsFailed = 0;
  /** Second and later transmissions of the same message (same sequence number). */
  retransmits = 0;
  /** Transmissions whose ACK did not come within the timeout. */
  ackTimeouts = 0;
  naks = 0;
  duhs = 0;
  /** Replies that matched no message in flight (late ACK after a retransmit, foreign sequence). */
  unmatchedReplies = 0;
  /** Encrypted replies that did not open with the device's key: not taken as an ACK. */
  unopenedReplies = 0;
  /** Frames from the receiver that were neither a reply nor a device-link message. */
  unexpectedFrames = 0;
  /** Bytes the framer threw away (bad CRC, bad length). */
  rejectedFrames = 0;
  /** Events the pacer could not queue because the device was too far behind. */
  eventsDropped = 0;
  linkTestsSent = 0;
  linkTestsAcked = 0;
  linkTestsFailed = 0;
  connects = 0;
  disconnects = 0;
  connectErrors = 0;
  sendErrors = 0;
  /** Devices whose transport is open right now. */
  connected = 0;
  hellosSent = 0;
  welcomes = 0;
  refusals = 0;
  /** DUH to VL-HELLO: the receiver does not speak the device link. */
  linkUnavailable = 0;
  commandsReceived = 0;
  timeSyncs = 0;
  replyPacketsSent = 0;
  linkErrors = 0;
  /** Messages still unanswered when the run ended. */
  unanswered = 0;

  /** First transmission -> ACK, every acknowledged event of the run. */
  readonly latency = new LatencyHistogram();
  /** The same, since the last progress line. */
  readonly recent = new LatencyHistogram();

  recordAck(ms: number): void {
    this.eventsAcked++;
    this.latency.record(ms);
    this.recent.record(ms);
  }
}

export interface SimSummary {
  transport: string;
  devices: number;
  elapsed_s: number;
  events_sent: number;
  events_acked: number;
  events_failed: number;
  events_dropped: number;
  acked_per_s: number;
  retransmits: number;
  ack_timeouts: number;
  naks: number;
  duhs: number;
  unmatched_replies: number;
  unopened_replies: number;
  unanswered: number;
  latency_ms: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  link_tests: { sent: number; acked: number; failed: number };
  connections: { connected: number; connects: number; disconnects: number; errors: number; send_errors: number };
  device_link: {
    hellos: number;
    welcomes: number;
    refusals: number;
    unavailable: number;
    commands: number;
    time_syncs: number;
    reply_packets: number;
    errors: number;
  };
  rejected_frames: number;
  unexpected_frames: number;
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

export function summarise(
  stats: SimStats,
  meta: { transport: string; devices: number; elapsedMs: number },
): SimSummary {
  const seconds = meta.elapsedMs / 1000;
  const l = stats.latency;
  return {
    transport: meta.transport,
    devices: meta.devices,
    elapsed_s: round(seconds),
    events_sent: stats.eventsSent,
    events_acked: stats.eventsAcked,
    events_failed: stats.eventsFailed,
    events_dropped: stats.eventsDropped,
    acked_per_s: seconds > 0 ? Math.round(stats.eventsAcked / seconds) : 0,
    retransmits: stats.retransmits,
    ack_timeouts: stats.ackTimeouts,
    naks: stats.naks,
    duhs: stats.duhs,
    unmatched_replies: stats.unmatchedReplies,
    unopened_replies: stats.unopenedReplies,
    unanswered: stats.unanswered,
    latency_ms: {
      p50: round(l.percentile(50)),
      p90: round(l.percentile(90)),
      p99: round(l.percentile(99)),
      p999: round(l.percentile(99.9)),
      max: round(l.maxMs),
      mean: round(l.meanMs),
    },
    link_tests: { sent: stats.linkTestsSent, acked: stats.linkTestsAcked, failed: stats.linkTestsFailed },
    connections: {
      connected: stats.connected,
      connects: stats.connects,
      disconnects: stats.disconnects,
      errors: stats.connectErrors,
      send_errors: stats.sendErrors,
    },
    device_link: {
      hellos: stats.hellosSent,
      welcomes: stats.welcomes,
      refusals: stats.refusals,
      unavailable: stats.linkUnavailable,
      commands: stats.commandsReceived,
      time_syncs: stats.timeSyncs,
      reply_packets: stats.replyPacketsSent,
      errors: stats.linkErrors,
    },
    rejected_frames: stats.rejectedFrames,
    unexpected_frames: stats.unexpectedFrames,
  };
}

/**
 * One progress line: `t=3.0s conn=100/100 sent=75012 acked=75000 rate=25010/s p50=1.92ms p99=6.10ms ...`.
 * `ackedBefore` is the acked count at the previous line; the recent histogram is reset here.
 */
export function progressLine(
  stats: SimStats,
  p: { elapsedMs: number; devices: number; ackedBefore: number; intervalMs: number },
): string {
  const rate = Math.round(((stats.eventsAcked - p.ackedBefore) * 1000) / Math.max(1, p.intervalMs));
  const r = stats.recent;
  const line =
    `t=${(p.elapsedMs / 1000).toFixed(1)}s conn=${stats.connected}/${p.devices} sent=${stats.eventsSent} ` +
    `acked=${stats.eventsAcked} rate=${rate}/s p50=${r.percentile(50).toFixed(2)}ms p99=${r.percentile(99).toFixed(2)}ms ` +
    `nak=${stats.naks} duh=${stats.duhs} timeout=${stats.ackTimeouts} retx=${stats.retransmits} ` +
    `null=${stats.linkTestsAcked}/${stats.linkTestsSent} cmd=${stats.commandsReceived} reconn=${stats.disconnects}`;
  r.reset();
  return line;
}
