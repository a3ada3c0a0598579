/**
 * GET /api/objects (scope `objects`): devices and their related objects, newest first, paged by
 * cursor. The contract names the scope and leaves the listing "not shown" (§Authentication 4);
 * the choices are in docs/api.md "Objects and events". The rules (scope, parameters, visible
 * receivers, override resolution) live in queryObjects (src/services/objects-service.ts), which
 * the page's /objects calls too.
 *
 * `oid` is what the outputs send for the object: its override OID (PUT /api/oid-override) when
 * one is set, else its account, as in the device command replies.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { objectItem } from '../../services/listing-items.js';
import { queryObjects } from '../../services/objects-service.js';
import { DATABASE_NOT_READY, type Forbidden, type NotReady } from '../../services/principal.js';
import { toCursor } from '../../services/query-params.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';

type Listing = Forbidden | NotReady | { kind: 'invalid'; errors: readonly string[] } | { kind: 'ok'; body: object };

/** A listing service's outcome as the contract's answer: 403, 400 lines, 503, 500 `E_3` or 200 JSON. */
export function listingAnswer(c: Context<ApiEnv>, run: () => Listing): Response {
  let outcome: Listing;
  try {
    outcome = run();
  } catch {
    return c.text(SERVER_FAILURE, 500);
  }
  switch (outcome.kind) {
    case 'forbidden':
      return c.text(FORBIDDEN, 403);
    case 'invalid':
      return c.text(outcome.errors.join('\n'), 400);
    case 'not-ready':
      return c.text(DATABASE_NOT_READY, 503);
    case 'ok':
      return c.json(outcome.body);
  }
}

export function registerObjects(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { store: deps.store, logger: deps.logger.child('objects') };

  function list(c: Context<ApiEnv>): Response {
    return listingAnswer(c, () => {
      const outcome = queryObjects(service, c.get('principal'), new URL(c.req.url).searchParams);
      if (outcome.kind !== 'ok') return outcome;
      const items = outcome.items.map((o) => objectItem(o.row, o.overrideOid));
      return { kind: 'ok', body: { items, next_cursor: toCursor(outcome.nextCursor) } };
    });
  }

  addRoute(app, { path: '/api/objects', style: 'text', auth, scope: 'objects', methods: { GET: list, HEAD: list } });
}
