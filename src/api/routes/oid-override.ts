/**
 * PUT /api/oid-override (scope `objects`). Every error of this endpoint is JSON `{"error": ...}`,
 * 401/403/405/413 included (management API §Errors, PUT /api/oid-override). The rules live in
 * setOverride (src/services/overrides-service.ts), which the page's /overrides calls too; this
 * file maps its outcome to the contract's status and body.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { NOT_VISIBLE, setOverride } from '../../services/overrides-service.js';
import { DATABASE_NOT_READY } from '../../services/principal.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export function registerOidOverride(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { store: deps.store, logger: deps.logger.child('oid-override') };

  async function put(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    try {
      const outcome = await setOverride(service, c.get('principal'), body.ok ? body.value : undefined);
      switch (outcome.kind) {
        case 'forbidden':
          return c.json({ error: FORBIDDEN }, 403);
        case 'invalid':
          return c.json({ error: outcome.error }, 400);
        case 'not-ready':
          return c.json({ error: DATABASE_NOT_READY }, 503);
        case 'not-visible':
          return c.json({ error: NOT_VISIBLE }, 400);
        case 'ok':
          return c.json({ success: true });
      }
    } catch {
      return c.json({ error: SERVER_FAILURE }, 500);
    }
  }

  addRoute(app, { path: '/api/oid-override', style: 'json', auth, scope: 'objects', methods: { PUT: put } });
}
