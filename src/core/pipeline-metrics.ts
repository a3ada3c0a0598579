/**
 * The few timings of the event path that the metrics (src/metrics, GET /metrics) need and only the
 * ingest side can measure. Producers get this interface (or nothing); they never see prom-client.
 */
export interface PipelineMetrics {
  /** One journal commit of the ingest: how long the writer took and how many events it held. */
  journalCommit(durationMs: number, events: number): void;
  /** Frames submitted by a receiver were stored and may be ACKed `latencyMs` after submission. */
  ackLatency(latencyMs: number, frames: number): void;
}
