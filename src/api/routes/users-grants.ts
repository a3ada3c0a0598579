/**
 * GET and PUT /api/users/:id/grants (scope `users`, the admin scope). The contract lets a user
 * record hold only settings/users/events/objects and leaves open how device_control, omit_mpass
 * and restart_services reach a person (§Authentication 5). Vigil: an administrator grants them per
 * user; grants live in the store (user_grants), are added to the scopes of the next login token,
 * and are re-read on every request, so a revocation takes effect on the caller's next request.
 * Errors: 401/403/405/413 plain text like the contract's other endpoints; 400/404/503 JSON.
 * The rules live in src/services/users-service.ts, which the page's /users calls too.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { GRANTABLE_SCOPES } from '../../auth/scopes.js';
import { readUserGrants, setUserGrants, type GrantsOutcome } from '../../services/users-service.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, SERVER_FAILURE, errorResponse, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export { parseGrantBody } from '../../services/users-service.js';

export const USER_NOT_FOUND = 'User not found';
export const INVALID_SCOPES = `scopes: must be an array of ${GRANTABLE_SCOPES.join(', ')}`;

export function registerUserGrants(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { settings: deps.settings, store: deps.store, logger: deps.logger.child('grants') };

  async function answer(c: Context<ApiEnv>, run: () => GrantsOutcome | Promise<GrantsOutcome>): Promise<Response> {
    let outcome: GrantsOutcome;
    try {
      outcome = await run();
    } catch {
      return errorResponse(c, 500, SERVER_FAILURE, 'json');
    }
    switch (outcome.kind) {
      case 'forbidden':
        return errorResponse(c, 403, FORBIDDEN);
      case 'not-found':
        return errorResponse(c, 404, USER_NOT_FOUND, 'json');
      case 'invalid':
        return errorResponse(c, 400, INVALID_SCOPES, 'json');
      case 'not-ready':
        return errorResponse(c, 503, 'Database is not ready', 'json');
      case 'ok':
        return c.json({ user_id: outcome.userId, scopes: outcome.scopes });
    }
  }

  function read(c: Context<ApiEnv>): Promise<Response> {
    return answer(c, () => readUserGrants(service, c.get('principal'), c.req.param('id')));
  }

  async function write(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    return answer(c, () =>
      setUserGrants(service, c.get('principal'), c.req.param('id'), body.ok ? body.value : undefined),
    );
  }

  addRoute(app, {
    path: '/api/users/:id/grants',
    style: 'text',
    auth,
    scope: 'users',
    methods: { GET: read, HEAD: read, PUT: write },
  });
}
