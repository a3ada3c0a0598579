/**
 * One registry that every receiver, output and store reports to; the API (/health, /api/status),
 * the status LEDs and the watchdog all read it. Modelled on signalk-server's setProviderError.
 */
export type ComponentState = 'starting' | 'ok' | 'degraded' | 'failed' | 'stopped';

export interface ComponentHealth {
  readonly name: string;
  readonly kind: string;
  readonly state: ComponentState;
  readonly detail: string | null;
  /** Free-form figures (connection count, backlog, last ACK time); JSON-safe values only. */
  readonly metrics: Readonly<Record<string, string | number | boolean | null>>;
  readonly since: number;
}

export type HealthListener = (component: ComponentHealth, previous: ComponentHealth | undefined) => void;

export class HealthRegistry {
  private readonly components = new Map<string, ComponentHealth>();
  private readonly listeners = new Set<HealthListener>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  report(
    name: string,
    kind: string,
    state: ComponentState,
    detail: string | null = null,
    metrics?: Record<string, string | number | boolean | null>,
  ): void {
    const previous = this.components.get(name);
    const since = previous && previous.state === state ? previous.since : this.now();
    const next: ComponentHealth = { name, kind, state, detail, metrics: metrics ?? previous?.metrics ?? {}, since };
    this.components.set(name, next);
    if (!previous || previous.state !== state || previous.detail !== detail) {
      for (const listener of this.listeners) {
        try {
          listener(next, previous);
        } catch {
          // A failing consumer must not break the reporter (zigbee2mqtt eventBus rule).
        }
      }
    }
  }

  /** Updates figures without counting as a state change. */
  setMetrics(name: string, metrics: Record<string, string | number | boolean | null>): void {
    const current = this.components.get(name);
    if (current) this.components.set(name, { ...current, metrics: { ...current.metrics, ...metrics } });
  }

  remove(name: string): void {
    this.components.delete(name);
  }

  get(name: string): ComponentHealth | undefined {
    return this.components.get(name);
  }

  snapshot(): ComponentHealth[] {
    return [...this.components.values()];
  }

  /** Components that keep the gateway from being healthy: anything not ok or degraded. */
  failing(): ComponentHealth[] {
    return this.snapshot().filter((c) => c.state !== 'ok' && c.state !== 'degraded');
  }

  onChange(listener: HealthListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
