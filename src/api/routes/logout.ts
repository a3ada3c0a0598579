/**
 * POST /api/logout (any valid token, no scope): ends the presented token before its expiry, as the
 * page's POST /logout ends the session's (one service: logout-service.ts). The contract leaves the
 * token operations open (§Authentication 9). 200 `{"success":true}`; 400 `TOKEN_HAS_NO_ID` for an
 * installer token made before token ids existed (only a new api_jwt_secret ends it); 500 `E_3`
 * when the store could not record it (the token is refused anyway until the gateway restarts).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { bearerToken } from '../middleware/auth.js';
import { logout } from '../../services/logout-service.js';
import { SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';

export function registerLogout(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('logout');
  async function post(c: Context<ApiEnv>): Promise<Response> {
    const outcome = await logout(deps, logger, bearerToken(c.req.header('Authorization'))!);
    if (outcome === 'no-id') return c.text('TOKEN_HAS_NO_ID', 400);
    if (outcome === 'revoked-until-restart') return c.text(SERVER_FAILURE, 500);
    return c.json({ success: true });
  }
  addRoute(app, { path: '/api/logout', style: 'text', auth, methods: { POST: post } });
}
