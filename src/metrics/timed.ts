/**
 * Wrappers that time the event path for PipelineMetrics without changing it: the ingest's journal
 * writer (commit latency, events per commit) and the ingest's submit (stored-and-ACKable latency,
 * which gates every DC-09 ACK: docs/receivers.md). Failures are passed through untimed.
 */
import type { PipelineMetrics } from '../core/pipeline-metrics.js';
import type { JournalWriter } from '../ingest/wire.js';
import type { EventIngest } from '../ingest/event-ingest.js';

export function timedWriter(writer: JournalWriter, metrics: PipelineMetrics): JournalWriter {
  return {
    async write(batch) {
      const started = performance.now();
      const result = await writer.write(batch);
      metrics.journalCommit(performance.now() - started, result.eventCount);
      return result;
    },
    ping: () => writer.ping(),
    liveness: () => writer.liveness(),
    close: () => writer.close(),
  };
}

/** The part of the ingest the receivers use (src/receivers/receiver-deps.ts). */
export type ReceiverIngest = Pick<EventIngest, 'submit' | 'closeSession' | 'drain'>;

export function timedIngest(ingest: ReceiverIngest, metrics: PipelineMetrics): ReceiverIngest {
  return {
    async submit(items) {
      const started = performance.now();
      const results = await ingest.submit(items);
      metrics.ackLatency(performance.now() - started, items.length);
      return results;
    },
    closeSession: (...args) => ingest.closeSession(...args),
    drain: () => ingest.drain(),
  };
}
