/**
 * GET /api/restart-services (scope `restart_services`; management API §GET /api/restart-services).
 * Answers 200 `{"success":true}` only after every receiver and output has been stopped and
 * started again. A failed restart is 500 `E_3` (the contract shows no failure status; E_3 is its
 * server-failure code). GET is the contract's method even though it changes state, so HEAD is
 * refused with 405: a link checker or proxy probing the URL must not restart anything.
 * The rule lives in restartServices (src/services/restart-service.ts), which the page calls too.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { restartServices } from '../../services/restart-service.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';

export function registerRestart(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { services: deps.services, logger: deps.logger.child('restart') };

  async function restart(c: Context<ApiEnv>): Promise<Response> {
    try {
      const outcome = await restartServices(service, c.get('principal'));
      return outcome.kind === 'ok' ? c.json({ success: true }) : c.text(FORBIDDEN, 403);
    } catch {
      return c.text(SERVER_FAILURE, 500);
    }
  }

  addRoute(app, {
    path: '/api/restart-services',
    style: 'text',
    auth,
    scope: 'restart_services',
    methods: { GET: restart },
  });
}
