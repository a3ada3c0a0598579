/**
 * GET and PUT /api/settings (scope `settings`; management API §PUT /api/settings).
 * Validation failure status is "not shown" in the contract: Vigil answers 400 with the
 * validation lines (field path first) joined by `\n`, as text/plain. Server-side failures,
 * including a failed save, are 500 `E_3` (§Errors, PUT /api/settings).
 * The rules live in src/services/settings-access.ts, which the page's settings forms call too.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { readSettings, saveSettings } from '../../services/settings-access.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export { NOT_AN_OBJECT } from '../../services/settings-access.js';

export function registerSettings(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { settings: deps.settings, logger: deps.logger.child('settings') };

  function read(c: Context<ApiEnv>): Response {
    const outcome = readSettings(service, c.get('principal'));
    return outcome.kind === 'ok' ? c.json(outcome.view) : c.text(FORBIDDEN, 403);
  }

  async function update(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    try {
      const outcome = await saveSettings(service, c.get('principal'), body.ok ? body.value : undefined);
      switch (outcome.kind) {
        case 'forbidden':
          return c.text(FORBIDDEN, 403);
        case 'invalid':
          return c.text(outcome.errors.join('\n'), 400);
        case 'ok':
          return c.json({ success: true });
      }
    } catch {
      return c.text(SERVER_FAILURE, 500);
    }
  }

  addRoute(app, {
    path: '/api/settings',
    style: 'text',
    auth,
    scope: 'settings',
    methods: { GET: read, HEAD: read, PUT: update },
  });
}
