/**
 * GET and PUT /api/settings (scope `settings`; management API §PUT /api/settings).
 * Validation failure status is "not shown" in the contract: Vigil answers 400 with the
 * validation lines (field path first) joined by `\n`, as text/plain. Server-side failures,
 * including a failed save, are 500 `E_3` (§Errors, PUT /api/settings).
 * The contract grants every section, `users` included, to the `settings` scope alone: `settings`
 * is therefore the administrator scope (docs/security.md).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { SERVER_FAILURE, isPlainObject, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export const NOT_AN_OBJECT = 'body: must be a JSON object';

export function registerSettings(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('settings');

  function read(c: Context<ApiEnv>): Response {
    return c.json(deps.settings.publicView());
  }

  async function update(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    if (!body.ok || !isPlainObject(body.value)) return c.text(NOT_AN_OBJECT, 400);
    const principal = c.get('principal');
    try {
      const result = await deps.settings.update(body.value);
      if (!result.ok) return c.text(result.errors.join('\n'), 400);
      logger.info('settings updated', { by: principal.subject, sections: Object.keys(body.value).join(',') });
      return c.json({ success: true });
    } catch (err) {
      logger.error('settings update failed', { by: principal.subject, error: describeError(err) });
      return c.text(SERVER_FAILURE, 500);
    }
  }

  addRoute(app, { path: '/api/settings', style: 'text', auth, scope: 'settings', methods: { GET: read, HEAD: read, PUT: update } });
}
