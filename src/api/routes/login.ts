/**
 * POST /api/login: the token-issuing operation the contract leaves open (§Authentication 9).
 * `{login, password}` -> 200 `{"token", "expires_at"}`. The token lives the user's token_time
 * minutes and carries the user's scopes plus the user's grants. Wrong credentials cost the same
 * scrypt whether or not the login exists (verifyPassword's dummy hash); repeated failures from one
 * address are throttled (LoginThrottle) with 429 `TOO_MANY_ATTEMPTS` and `Retry-After`.
 */
import type { Context, Hono } from 'hono';
import { describeError } from '../../core/errors.js';
import { verifyPassword } from '../../auth/passwords.js';
import { userSubject } from '../../auth/tokens.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { readGrants } from '../middleware/auth.js';
import { INVALID_REQUEST, NOT_LOGGED_IN, SERVER_FAILURE, isPlainObject, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export const TOO_MANY_ATTEMPTS = 'TOO_MANY_ATTEMPTS';

/** The TCP peer address from @hono/node-server, never from a header a client could forge. */
export function clientAddress(c: Context<ApiEnv>): string {
  return c.env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

export function registerLogin(app: Hono<ApiEnv>, deps: ApiDeps): void {
  const logger = deps.logger.child('login');

  async function login(c: Context<ApiEnv>): Promise<Response> {
    const address = clientAddress(c);
    const decision = deps.throttle.begin(address);
    if (!decision.allowed) {
      c.header('Retry-After', String(decision.retryAfterS));
      return c.text(TOO_MANY_ATTEMPTS, 429);
    }
    let outcome: 'success' | 'failure' | null = null;
    try {
      const body = await readJson(c);
      if (!body.ok || !isPlainObject(body.value)) return c.text(INVALID_REQUEST, 400);
      const { login: name, password } = body.value;
      if (typeof name !== 'string' || typeof password !== 'string') return c.text(INVALID_REQUEST, 400);
      const user = deps.settings.current().users.find((u) => u.login === name);
      // Always one scrypt: an unknown login verifies against a dummy hash (same time either way).
      const good = await verifyPassword(password, user?.password_hash);
      if (!good || !user) {
        outcome = 'failure';
        logger.warn('login failed', { address, login: name.slice(0, 64) });
        return c.text(NOT_LOGGED_IN, 401);
      }
      outcome = 'success';
      const scopes = [...new Set([...user.scopes, ...readGrants(deps.store, user.id, logger)])];
      const issued = await deps.tokens.issueToken({
        sub: userSubject(user.id),
        scopes,
        epoch: deps.store.tokenEpochs.get(user.id),
        minutes: user.token_time,
        now: deps.clock.now(),
      });
      logger.info('login', { address, user_id: user.id });
      return c.json({ token: issued.token, expires_at: issued.expiresAt.toISOString() });
    } catch (err) {
      logger.error('login error', { address, error: describeError(err) });
      return c.text(SERVER_FAILURE, 500);
    } finally {
      deps.throttle.finish(address, outcome);
    }
  }

  addRoute(app, { path: '/api/login', style: 'text', methods: { POST: login } });
}
