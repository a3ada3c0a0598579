/**
 * POST /api/login: the token-issuing operation the contract leaves open (§Authentication 9).
 * `{login, password}` -> 200 `{"token", "expires_at"}`. The token lives the user's token_time
 * minutes and carries the user's scopes plus the user's grants. Wrong credentials cost the same
 * scrypt whether or not the login exists (verifyPassword's dummy hash); repeated failures from one
 * address are throttled (LoginThrottle) with 429 `TOO_MANY_ATTEMPTS` and `Retry-After`.
 */
import type { Context, Hono } from 'hono';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { checkLogin } from '../../services/login-service.js';
import { INVALID_REQUEST, NOT_LOGGED_IN, SERVER_FAILURE, readJson } from '../responses.js';
import { isPlainObject } from '../../services/json-values.js';
import { addRoute } from '../route.js';

export const TOO_MANY_ATTEMPTS = 'TOO_MANY_ATTEMPTS';

/** The TCP peer address from @hono/node-server, never from a header a client could forge. */
export function clientAddress(c: Context<ApiEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

export function registerLogin(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const logger = deps.logger.child('login');

  async function login(c: Context<ApiEnv>): Promise<Response> {
    try {
      const outcome = await checkLogin(deps, logger, clientAddress(c), async () => {
        const body = await readJson(c);
        if (!body.ok || !isPlainObject(body.value)) return null;
        const { login: name, password } = body.value;
        return typeof name === 'string' && typeof password === 'string' ? { login: name, password } : null;
      });
      switch (outcome.kind) {
        case 'throttled':
          c.header('Retry-After', String(outcome.retryAfterS));
          return c.text(TOO_MANY_ATTEMPTS, 429);
        case 'invalid':
          return c.text(INVALID_REQUEST, 400);
        case 'refused':
          return c.text(NOT_LOGGED_IN, 401);
        case 'ok':
          return c.json({ token: outcome.token, expires_at: outcome.expiresAt.toISOString() });
      }
    } catch {
      return c.text(SERVER_FAILURE, 500);
    }
  }

  addRoute(app, { path: '/api/login', style: 'text', methods: { POST: login } });
}
