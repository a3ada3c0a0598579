/**
 * GET /metrics in the Prometheus text format (prom-client), one registry per gateway (no module
 * singleton). Most figures are read at scrape time from the places that already keep them: the
 * health registry (receivers' and outputs' figures, modems' and serial ports' figures, component
 * states), the store (lost objects, file size). Events are counted from the ingest bus; the
 * journal commit and ACK timings come through PipelineMetrics. Names and labels: docs/metrics.md.
 */
import { statSync } from 'node:fs';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Admission } from '../core/admission/admission.js';
import type { HealthRegistry } from '../core/health.js';
import type { PipelineMetrics } from '../core/pipeline-metrics.js';
import { receiverOf } from '../core/component-receiver.js';

export interface GatewayMetricsDeps {
  readonly health: HealthRegistry;
  readonly objects: { countByState(): Record<string, number> };
  /** The database file; its -wal and -shm companions are added. */
  readonly dbPath: string;
  readonly now: () => number;
}

/** Receiver figures (src/receivers/receiver-counters.ts) that count refused input. */
const REJECT_REASONS: Readonly<Record<string, string>> = {
  rejected: 'malformed',
  naks: 'nak',
  duhs: 'duh',
  dropped: 'overload',
  refused: 'connection_refused',
  refused_source: 'source_connections',
  refused_rate: 'source_accept_rate',
  refused_budget: 'connection_budget',
  shed: 'shed',
  first_frame_timeouts: 'first_frame_timeout',
  rate_limited: 'source_datagram_rate',
  replies_withheld: 'reply_withheld',
  refused_new_object: 'new_object',
};

/** Receiver figures counting frames that showed a tolerated DC-09 deviation (docs/dc09.md "Tolerances"), by quirk. */
const QUIRK_FIGURES: Readonly<Record<string, string>> = {
  quirk_binary_crc: 'binary_crc',
  quirk_cr_counted: 'cr_counted',
  quirk_trailing_bytes: 'trailing_bytes',
  quirk_empty_line: 'empty_line',
  quirk_text_account: 'text_account',
};

/** Modem and serial figures exported as gauges when a component reports them. */
const SIGNAL_FIGURES = ['csq', 'rssi_dbm', 'ber', 'bytes_in', 'bytes_out'] as const;

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

export class GatewayMetrics implements PipelineMetrics {
  readonly registry = new Registry();
  private readonly deps: GatewayMetricsDeps;
  private readonly eventsReceived: Counter<'receiver' | 'protocol'>;
  private readonly ackLatencySeconds: Histogram;
  private readonly commitSeconds: Histogram;
  private readonly batchSize: Histogram;
  private readonly rejected: Counter<'receiver' | 'reason'>;
  private readonly tolerated: Counter<'receiver' | 'quirk'>;
  /** Last seen value of each cumulative health figure, to turn it into a monotonic counter. */
  private readonly lastSeen = new Map<string, number>();
  private defaultsStarted = false;
  private readonly eventsByLabels = new Map<string, { inc(): void }>();
  private admission: Admission | null = null;

  constructor(deps: GatewayMetricsDeps) {
    this.deps = deps;
    const registers = [this.registry];
    this.eventsReceived = new Counter({
      name: 'vigil_events_received_total',
      help: 'Events journaled, by receiver id ("gateway" for internal events) and protocol',
      labelNames: ['receiver', 'protocol'],
      registers,
    });
    // Read from the health registry when the counter itself is scraped (a gauge's collect would run after the
    // counters were already rendered, and the figures would show one scrape late).
    this.rejected = new Counter({
      name: 'vigil_frames_rejected_total',
      help: 'Frames and connections refused by the receivers, by reason',
      labelNames: ['receiver', 'reason'],
      registers,
      collect: () =>
        this.growFromReceivers(this.rejected, REJECT_REASONS, (receiver, reason) => ({ receiver, reason })),
    });
    this.tolerated = new Counter({
      name: 'vigil_frames_tolerated_total',
      help: 'DC-09 frames accepted although they deviate from the standard, by receiver and quirk',
      labelNames: ['receiver', 'quirk'],
      registers,
      collect: () => this.growFromReceivers(this.tolerated, QUIRK_FIGURES, (receiver, quirk) => ({ receiver, quirk })),
    });
    this.ackLatencySeconds = new Histogram({
      name: 'vigil_ack_latency_seconds',
      help: 'From a receiver submitting frames to their events being stored (the moment their ACK may be sent)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.commitSeconds = new Histogram({
      name: 'vigil_journal_commit_seconds',
      help: 'Duration of one journal group commit',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.batchSize = new Histogram({
      name: 'vigil_journal_batch_events',
      help: 'Events per journal group commit',
      buckets: [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
      registers,
    });
    this.defineHealthGauges(registers);
    this.defineAdmission(registers);
  }

  /** The admission component whose refusals and sockets GET /metrics shows. */
  admit(admission: Admission): void {
    this.admission = admission;
  }

  /** The admission's refusals per door and reason, and its sockets (docs/metrics.md). */
  private defineAdmission(registers: Registry[]): void {
    const metrics = this;
    new Counter({
      name: 'vigil_admission_refusals_total',
      help: 'Refusals of the admission budget (docs/security.md "Admission"), by door and reason',
      labelNames: ['door', 'reason'],
      registers,
      collect() {
        // The counts only grow for the gateway's life; the counter follows them.
        for (const [door, reason, n] of metrics.admission?.counts.entries() ?? []) {
          metrics.grow(this, { door, reason }, n);
        }
      },
    });
    new Gauge({
      name: 'vigil_admission_sockets',
      help: 'Sockets of every door in the descriptor budget: used, strangers among them, and the limit',
      labelNames: ['figure'],
      registers,
      collect() {
        const pool = metrics.admission?.pool;
        if (!pool) return;
        this.set({ figure: 'used' }, pool.used);
        this.set({ figure: 'strangers' }, pool.sheddable);
        this.set({ figure: 'limit' }, pool.limit);
      },
    });
  }

  /** Starts the process figures (event-loop lag, RSS, CPU); idempotent. */
  start(): void {
    if (this.defaultsStarted) return;
    this.defaultsStarted = true;
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  eventStored(receiverId: number | null, protocol: string): void {
    // Called for every stored event: the labelled child is looked up once per (receiver, protocol),
    // not hashed from a labels object each time.
    const key = `${receiverId ?? 'gateway'}\u0000${protocol}`;
    let child = this.eventsByLabels.get(key);
    if (!child) {
      child = this.eventsReceived.labels({ receiver: receiverId === null ? 'gateway' : String(receiverId), protocol });
      this.eventsByLabels.set(key, child);
    }
    child.inc();
  }

  journalCommit(durationMs: number, events: number): void {
    this.commitSeconds.observe(durationMs / 1000);
    this.batchSize.observe(events);
  }

  ackLatency(latencyMs: number): void {
    this.ackLatencySeconds.observe(latencyMs / 1000);
  }

  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }

  /** Adds the growth of each receiver's cumulative `figures` (health metrics name -> label value) to `counter`. */
  private growFromReceivers<L extends string>(
    counter: Counter<L>,
    figures: Readonly<Record<string, string>>,
    labels: (receiver: string, value: string) => Record<L, string>,
  ): void {
    for (const c of this.deps.health.snapshot()) {
      if (c.kind !== 'receiver') continue;
      const receiver = String(receiverOf(c) ?? c.name);
      for (const [figure, label] of Object.entries(figures)) {
        const value = num(c.metrics[figure]);
        if (value !== null) this.grow(counter, labels(receiver, label), value);
      }
    }
  }

  /** Adds the growth of a cumulative figure (reset when its component restarted) to a counter. */
  private grow<L extends string>(counter: Counter<L>, labels: Record<L, string>, value: number): void {
    // Label values in declaration order; the two counters' reasons and quirks never share a name.
    const key = Object.values(labels).join('|');
    const last = this.lastSeen.get(key) ?? 0;
    const delta = value >= last ? value - last : value;
    this.lastSeen.set(key, value);
    if (delta > 0) counter.inc(labels, delta);
  }

  private defineHealthGauges(registers: Registry[]): void {
    const { health, deps } = { health: this.deps.health, deps: this.deps };
    new Gauge({
      name: 'vigil_component_up',
      help: 'Health registry components: 1 when ok or degraded, else 0; state and kind as labels',
      labelNames: ['component', 'kind', 'state'],
      registers,
      collect() {
        this.reset();
        for (const c of health.snapshot())
          this.set(
            { component: c.name, kind: c.kind, state: c.state },
            c.state === 'ok' || c.state === 'degraded' ? 1 : 0,
          );
      },
    });
    new Gauge({
      name: 'vigil_connected_devices',
      help: 'Open device connections per receiver',
      labelNames: ['receiver'],
      registers,
      collect() {
        this.reset();
        for (const c of health.snapshot().filter((h) => h.kind === 'receiver')) {
          const value = num(c.metrics.connections);
          if (value !== null) this.set({ receiver: String(receiverOf(c) ?? c.name) }, value);
        }
      },
    });
    const outputGauge = (
      name: string,
      help: string,
      read: (m: Record<string, unknown>, state: string) => number | null,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['output'],
        registers,
        collect() {
          this.reset();
          for (const c of health.snapshot().filter((h) => h.kind === 'output')) {
            const value = read(c.metrics, c.state);
            if (value !== null) this.set({ output: c.name }, value);
          }
        },
      });
    outputGauge('vigil_output_delivered', 'Events ACKed by the output peer since the output started', (m) =>
      num(m.delivered),
    );
    outputGauge(
      'vigil_output_unsendable',
      'Events the output skipped (the protocol cannot carry them or the peer refuses them) since it started',
      (m) => num(m.unsendable),
    );
    outputGauge('vigil_output_retries', 'Retransmissions since the output started', (m) => num(m.retries));
    outputGauge(
      'vigil_output_refused_clients',
      'Clients a TCP server output closed because they are not on its allow-list, since it started',
      (m) => num(m.refused_clients),
    );
    outputGauge('vigil_output_failed', '1 while the output is failed (retries exhausted)', (_m, state) =>
      state === 'failed' ? 1 : 0,
    );
    outputGauge('vigil_output_backlog', 'Journal events not yet delivered by the output', (m) => num(m.backlog));
    outputGauge('vigil_output_last_ack_age_seconds', 'Seconds since the output peer last ACKed anything', (m) => {
      const at = num(m.last_ack_at);
      return at === null ? null : Math.max(0, (deps.now() - at) / 1000);
    });
    new Gauge({
      name: 'vigil_component_figure',
      help: 'Modem and serial port figures (csq, rssi_dbm, ber, bytes_in, bytes_out) of components that report them',
      labelNames: ['component', 'kind', 'figure'],
      registers,
      collect() {
        this.reset();
        for (const c of health.snapshot()) {
          for (const figure of SIGNAL_FIGURES) {
            const value = num(c.metrics[figure]);
            if (value !== null) this.set({ component: c.name, kind: c.kind, figure }, value);
          }
        }
      },
    });
    new Gauge({
      name: 'vigil_objects',
      help: 'Objects (devices and related objects) by connection state; state="lost" are the lost objects',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        const counts = { online: 0, offline: 0, lost: 0, ...deps.objects.countByState() };
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
    new Gauge({
      name: 'vigil_store_size_bytes',
      help: 'Size of the SQLite store: database file plus its write-ahead log and shared-memory file',
      registers,
      collect() {
        this.set(fileSize(deps.dbPath) + fileSize(`${deps.dbPath}-wal`) + fileSize(`${deps.dbPath}-shm`));
      },
    });
  }
}
