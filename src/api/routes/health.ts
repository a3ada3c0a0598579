/**
 * GET /health (no authentication: for load balancers and the watchdog's peers) and
 * GET /api/status (any valid token, no scope). Both read the one HealthRegistry every receiver,
 * output and the store report to. Both are side-effect free, so HEAD is served as well.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ComponentHealth } from '../../core/health.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { addRoute } from '../route.js';

function describe(component: ComponentHealth): Record<string, unknown> {
  return {
    name: component.name,
    kind: component.kind,
    state: component.state,
    detail: component.detail,
    since: new Date(component.since).toISOString(),
    metrics: component.metrics,
  };
}

export function registerHealth(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  function health(c: Context<ApiEnv>): Response {
    const failing = deps.health.failing();
    if (failing.length === 0) return c.json({ status: 'ok' });
    return c.json(
      { status: 'failing', components: failing.map((f) => ({ name: f.name, state: f.state, detail: f.detail })) },
      503,
    );
  }

  function status(c: Context<ApiEnv>): Response {
    const all = deps.health.snapshot();
    const now = deps.clock.now();
    return c.json({
      instance_name: deps.settings.current().general.instance_name,
      version: deps.version,
      started_at: new Date(deps.startedAt).toISOString(),
      uptime_s: Math.max(0, Math.floor((now - deps.startedAt) / 1000)),
      store: { state: deps.health.get('store')?.state ?? 'unknown' },
      receivers: all.filter((h) => h.kind === 'receiver').map(describe),
      outputs: all.filter((h) => h.kind === 'output').map(describe),
      components: all.filter((h) => h.kind !== 'receiver' && h.kind !== 'output').map(describe),
    });
  }

  addRoute(app, { path: '/health', style: 'text', methods: { GET: health, HEAD: health } });
  addRoute(app, { path: '/api/status', style: 'text', auth, methods: { GET: status, HEAD: status } });
}
