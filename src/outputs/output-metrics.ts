/**
 * The figures of one output in the HealthRegistry (`out:<id>`, kind 'output'), read by GET /api/status:
 *   connected    the link is up
 *   backlog      journal events after the cursor (not yet delivered or skipped); null while unknown
 *   last_ack_at  ms epoch of the last ACK from the peer (events and supervision), null before the first
 *   counters_since  ms epoch when the counters below started (the output's start: they are not persisted)
 *   delivered    events ACKed since counters_since
 *   retries      transmissions after the first of a message (NAK, silence, link loss), since counters_since
 *   unsendable   events skipped because the protocol cannot carry them or the peer refuses them, since counters_since
 *   failed       in the failed (supervision-only) state
 *   cursor       id of the last event delivered or skipped
 *   protocol     the protocol the output speaks, as the Status view names it ("MLR2-DG", "ADEMCO-685", ...)
 * Counters change per event, so they are pushed to the registry on a timer and on state changes, not per event.
 */
import type { ComponentState, HealthRegistry } from '../core/health.js';

export type OutputCounter = 'delivered' | 'retries' | 'unsendable';

export type MetricValue = string | number | boolean | null;

export class OutputMetrics {
  private readonly name: string;
  private readonly health: HealthRegistry;
  private readonly counters: Record<OutputCounter, number> = { delivered: 0, retries: 0, unsendable: 0 };
  private lastAckAt: number | null = null;
  private readonly values: Record<string, MetricValue> = { connected: false, backlog: null, failed: false, cursor: 0 };

  constructor(name: string, health: HealthRegistry, countersSince: number, fixed: Record<string, MetricValue> = {}) {
    this.name = name;
    this.health = health;
    this.values.counters_since = countersSince;
    Object.assign(this.values, fixed);
  }

  count(counter: OutputCounter): void {
    this.counters[counter]++;
  }

  ack(at: number): void {
    this.lastAckAt = at;
  }

  get(counter: OutputCounter): number {
    return this.counters[counter];
  }

  /** Merges figures and publishes everything. */
  set(values: Record<string, MetricValue>): void {
    Object.assign(this.values, values);
    this.health.setMetrics(this.name, this.snapshot());
  }

  report(state: ComponentState, detail: string | null): void {
    this.health.report(this.name, 'output', state, detail, this.snapshot());
  }

  snapshot(): Record<string, MetricValue> {
    return { ...this.values, last_ack_at: this.lastAckAt, ...this.counters };
  }
}
