/**
 * GET and PUT /api/users/:id/grants (scope `users`, the admin scope). The contract lets a user
 * record hold only settings/users/events/objects and leaves open how device_control, omit_mpass
 * and restart_services reach a person (§Authentication 5). Vigil: an administrator grants them per
 * user; grants live in the store (user_grants), are added to the scopes of the next login token,
 * and are re-read on every request, so a revocation takes effect on the caller's next request.
 * Errors: 401/403/405/413 plain text like the contract's other endpoints; 400/404/503 JSON.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError, isVigilError } from '../../core/errors.js';
import type { ApiDeps, ApiEnv, ApiUser } from '../deps.js';
import { SERVER_FAILURE, errorResponse, isPlainObject, readJson } from '../responses.js';
import { addRoute } from '../route.js';
import { GRANTABLE_SCOPES } from '../../auth/scopes.js';

export const USER_NOT_FOUND = 'User not found';
export const INVALID_SCOPES = `scopes: must be an array of ${GRANTABLE_SCOPES.join(', ')}`;

function findUser(deps: ApiDeps, idText: string | undefined): ApiUser | undefined {
  if (!idText || !/^[1-9][0-9]{0,14}$/.test(idText)) return undefined;
  const id = Number(idText);
  return deps.settings.current().users.find((u) => u.id === id);
}

/** The requested scopes, de-duplicated in canonical order, or null when the body is wrong. */
export function parseGrantBody(body: unknown): string[] | null {
  if (!isPlainObject(body) || Object.keys(body).some((k) => k !== 'scopes')) return null;
  const { scopes } = body;
  if (!Array.isArray(scopes)) return null;
  const known: readonly string[] = GRANTABLE_SCOPES;
  if (!scopes.every((s) => typeof s === 'string' && known.includes(s))) return null;
  return GRANTABLE_SCOPES.filter((s) => scopes.includes(s));
}

function storeProblem(err: unknown): boolean {
  return isVigilError(err, 'STORE_UNAVAILABLE') || isVigilError(err, 'STORE_FAILURE');
}

export function registerUserGrants(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('grants');

  function failure(c: Context<ApiEnv>, err: unknown): Response {
    logger.error('grants store failed', { error: describeError(err) });
    if (isVigilError(err, 'NOT_FOUND')) return errorResponse(c, 404, USER_NOT_FOUND, 'json');
    if (storeProblem(err)) return errorResponse(c, 503, 'Database is not ready', 'json');
    return errorResponse(c, 500, SERVER_FAILURE, 'json');
  }

  function read(c: Context<ApiEnv>): Response {
    const user = findUser(deps, c.req.param('id'));
    if (!user) return errorResponse(c, 404, USER_NOT_FOUND, 'json');
    try {
      const granted = deps.store.grants.get(user.id);
      return c.json({ user_id: user.id, scopes: GRANTABLE_SCOPES.filter((s) => granted.includes(s)) });
    } catch (err) {
      return failure(c, err);
    }
  }

  async function write(c: Context<ApiEnv>): Promise<Response> {
    const user = findUser(deps, c.req.param('id'));
    if (!user) return errorResponse(c, 404, USER_NOT_FOUND, 'json');
    const body = await readJson(c);
    const scopes = parseGrantBody(body.ok ? body.value : undefined);
    if (!scopes) return errorResponse(c, 400, INVALID_SCOPES, 'json');
    const by = c.get('principal').subject;
    try {
      deps.store.grants.set(user.id, scopes, by);
    } catch (err) {
      return failure(c, err);
    }
    logger.info('grants set', { by, user_id: user.id, scopes: scopes.join(',') });
    return c.json({ user_id: user.id, scopes });
  }

  addRoute(app, { path: '/api/users/:id/grants', style: 'text', auth, scope: 'users', methods: { GET: read, HEAD: read, PUT: write } });
}
