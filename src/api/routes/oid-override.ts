/**
 * PUT /api/oid-override (scope `objects`). Every error of this endpoint is JSON `{"error": ...}`,
 * 401/403/405/413 included (management API §Errors, PUT /api/oid-override). Overrides need the
 * database: a store that cannot write (or is not open) answers 503 `Database is not ready`,
 * after the body has been validated so a caller learns about both kinds of problem.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError, isVigilError } from '../../core/errors.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { parseOidOverride } from '../oid-override-request.js';
import { overrideAllowed } from '../override-visibility.js';
import { SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export const DATABASE_NOT_READY = 'Database is not ready';
/**
 * The answer to an override of a device the caller cannot see (or that does not exist, for a
 * caller limited to some receivers): the contract's generic 400, so it never tells the two apart.
 */
export const NOT_VISIBLE = 'Invalid data';

function storeProblem(err: unknown): boolean {
  return isVigilError(err, 'STORE_UNAVAILABLE') || isVigilError(err, 'STORE_FAILURE');
}

export function registerOidOverride(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('oid-override');

  async function put(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    const verdict = parseOidOverride(body.ok ? body.value : undefined);
    if (!verdict.ok) return c.json({ error: verdict.error }, 400);
    const { subject: by, visibleReceivers } = c.get('principal');
    try {
      if (!deps.store.isWritable()) return c.json({ error: DATABASE_NOT_READY }, 503);
      if (!overrideAllowed(deps.store.objects, verdict.value, visibleReceivers)) {
        logger.info('override refused: device not visible to the caller', { by, match: `${verdict.value.matchKind}:${verdict.value.matchValue}` });
        return c.json({ error: NOT_VISIBLE }, 400);
      }
      deps.store.overrides.set({ ...verdict.value });
    } catch (err) {
      logger.error('override not stored', { by, error: describeError(err) });
      if (storeProblem(err)) return c.json({ error: DATABASE_NOT_READY }, 503);
      return c.json({ error: SERVER_FAILURE }, 500);
    }
    logger.info('override set', {
      by,
      match: `${verdict.value.matchKind}:${verdict.value.matchValue}`,
      related_oid: verdict.value.relatedOid,
      override_oid: verdict.value.overrideOid,
    });
    return c.json({ success: true });
  }

  addRoute(app, { path: '/api/oid-override', style: 'json', auth, scope: 'objects', methods: { PUT: put } });
}
