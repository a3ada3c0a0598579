/**
 * The status view, built once for GET /api/status, the technician's page and `vigil status`
 * (which reads it over the API). Every component of the health registry is listed generically,
 * so kinds added later (serial ports, modems) appear without a change here.
 *
 * Visibility: a caller limited to some receivers sees only those receivers. A component belongs
 * to a receiver when its name is `rx:<kind>:<id>` (or starts with `rx:<kind>:<id>:`) or its figures
 * carry a numeric `receiver_id` (docs/web.md §Visibility); such components of other receivers are
 * left out, and so is a receiver whose id cannot be told (fail closed, docs/api.md "GET /api/status").
 * Callers go through src/services/status-service.ts, which takes the principal.
 */
import type { ComponentHealth, HealthRegistry } from '../core/health.js';
import type { Clock } from '../core/clock.js';
import { visibleComponent } from '../core/component-receiver.js';

export interface StatusComponent {
  readonly name: string;
  readonly kind: string;
  readonly state: string;
  readonly detail: string | null;
  readonly since: string;
  readonly metrics: Readonly<Record<string, string | number | boolean | null>>;
}

export interface StatusBody {
  readonly instance_name: string;
  readonly version: string;
  readonly started_at: string;
  readonly uptime_s: number;
  readonly store: { readonly state: string };
  readonly receivers: StatusComponent[];
  readonly outputs: StatusComponent[];
  readonly components: StatusComponent[];
}

export interface StatusDeps {
  readonly version: string;
  readonly startedAt: number;
  readonly clock: Clock;
  readonly health: HealthRegistry;
  readonly settings: { current(): { readonly general: { readonly instance_name: string } } };
}

function describe(component: ComponentHealth): StatusComponent {
  return {
    name: component.name,
    kind: component.kind,
    state: component.state,
    detail: component.detail,
    since: new Date(component.since).toISOString(),
    metrics: component.metrics,
  };
}

export function statusBody(deps: StatusDeps, visibleReceivers: readonly number[] | null): StatusBody {
  const all = deps.health.snapshot().filter((h) => visibleComponent(h, visibleReceivers));
  const now = deps.clock.now();
  return {
    instance_name: deps.settings.current().general.instance_name,
    version: deps.version,
    started_at: new Date(deps.startedAt).toISOString(),
    uptime_s: Math.max(0, Math.floor((now - deps.startedAt) / 1000)),
    store: { state: deps.health.get('store')?.state ?? 'unknown' },
    receivers: all.filter((h) => h.kind === 'receiver').map(describe),
    outputs: all.filter((h) => h.kind === 'output').map(describe),
    components: all.filter((h) => h.kind !== 'receiver' && h.kind !== 'output').map(describe),
  };
}
