/**
 * GET /health (a token is optional: load balancers and the watchdog's peers send none) and
 * GET /api/status (any valid token, no scope). Both read the one HealthRegistry every receiver,
 * output and the store report to, through src/services/status-service.ts, which decides what the
 * caller may see: anonymous callers get the status word only, token holders the failing components
 * of the receivers they see and the gateway-wide ones. Both are side-effect free, so HEAD is served.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.js';
import type { Principal } from '../../services/principal.js';
import { addRoute } from '../route.js';
import { healthFor, statusFor } from '../../services/status-service.js';

/**
 * A Bearer token on /health is checked like on every token endpoint (a refused one is 401, so a
 * caller never mistakes an expired token for "no details"); without one the caller is anonymous.
 * Other schemes (a proxy's Basic credentials) are not Vigil's and leave the caller anonymous.
 */
function optionalBearer(auth: MiddlewareHandler<ApiEnv>): MiddlewareHandler<ApiEnv> {
  return async function optionalBearer(c, next) {
    if (!/^bearer(\s|$)/i.test(c.req.header('Authorization') ?? '')) {
      await next();
      return undefined;
    }
    return auth(c, next);
  };
}

export function registerHealth(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  function health(c: Context<ApiEnv>): Response {
    const principal = c.get('principal') as Principal | undefined;
    const { code, body } = healthFor(deps.health, principal ?? null);
    return c.json(body, code);
  }

  function status(c: Context<ApiEnv>): Response {
    return c.json(statusFor(deps, c.get('principal')));
  }

  addRoute(app, { path: '/health', style: 'text', auth: optionalBearer(auth), methods: { GET: health, HEAD: health } });
  addRoute(app, { path: '/api/status', style: 'text', auth, methods: { GET: status, HEAD: status } });
}
