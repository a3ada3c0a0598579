/**
 * What a caller may see of the gateway's health: the one place that applies `visible_receivers`
 * to GET /health, GET /api/status and the page's Status view (docs/api.md "GET /health",
 * "GET /api/status"; docs/security.md "Anonymous health probes", "Status and metrics of other receivers"). Routes
 * only translate HTTP; the page and the API call the same function with the principal.
 *
 * The watchdog, the LEDs and the internal-event bridge read the HealthRegistry directly: they are
 * the gateway itself, not a caller, and see every component.
 */
import type { HealthRegistry } from '../core/health.js';
import { statusBody, type StatusBody, type StatusDeps } from './status-body.js';
import { visibleComponent } from '../core/component-receiver.js';

/** The part of a principal (principal.ts) visibility needs; null visibleReceivers sees all. */
export interface Viewer {
  readonly visibleReceivers: readonly number[] | null;
}

/**
 * Whether the viewer sees what belongs to `receiverId`; null is the gateway's own (internal events),
 * seen only by viewers of every receiver, as in GET /api/events (docs/api.md "Visible receivers").
 * Anything added to the status that names objects, UIDs or accounts is filtered with this.
 */
export function seesReceiver(viewer: Viewer, receiverId: number | null): boolean {
  if (viewer.visibleReceivers === null) return true;
  return receiverId !== null && viewer.visibleReceivers.includes(receiverId);
}

export interface FailingComponent {
  readonly name: string;
  readonly state: string;
  readonly detail: string | null;
}

export type HealthBody =
  | { readonly status: 'ok' }
  | { readonly status: 'failing'; readonly components?: readonly FailingComponent[] };

export interface HealthAnswer {
  readonly code: 200 | 503;
  readonly body: HealthBody;
}

/**
 * GET /health. The status word and code are the whole gateway's for every caller (a load balancer
 * needs exactly that). Anonymous callers (viewer null) get nothing more: component names and
 * details (bind errors, SIM PIN trouble, setup-file lines) are for token holders, and of those only
 * the components the caller may see (gateway-wide ones, and its own receivers').
 */
export function healthFor(health: HealthRegistry, viewer: Viewer | null): HealthAnswer {
  const failing = health.failing();
  if (failing.length === 0) return { code: 200, body: { status: 'ok' } };
  if (viewer === null) return { code: 503, body: { status: 'failing' } };
  const components = failing
    .filter((f) => visibleComponent(f, viewer.visibleReceivers))
    .map((f) => ({ name: f.name, state: f.state, detail: f.detail }));
  return { code: 503, body: { status: 'failing', components } };
}

/** GET /api/status, the page's Status view and (over the API) `vigil status`. */
export function statusFor(deps: StatusDeps, viewer: Viewer): StatusBody {
  return statusBody(deps, viewer.visibleReceivers);
}
