/**
 * GET /health (no authentication: for load balancers and the watchdog's peers) and
 * GET /api/status (any valid token, no scope). Both read the one HealthRegistry every receiver,
 * output and the store report to. Both are side-effect free, so HEAD is served as well.
 * A caller limited to some receivers sees only those receivers' components (src/api/status-body.ts).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { addRoute } from '../route.js';
import { statusBody } from '../status-body.js';

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
    return c.json(statusBody(deps, c.get('principal').visibleReceivers));
  }

  addRoute(app, { path: '/health', style: 'text', methods: { GET: health, HEAD: health } });
  addRoute(app, { path: '/api/status', style: 'text', auth, methods: { GET: status, HEAD: status } });
}
