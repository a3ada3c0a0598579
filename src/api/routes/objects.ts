/**
 * GET /api/objects (scope `objects`): devices and their related objects, newest first, paged by
 * cursor. The contract names the scope and leaves the listing "not shown" (§Authentication 4);
 * the choices are in docs/api.md "Objects and events".
 *
 * `oid` is what the outputs send for the object: its override OID (PUT /api/oid-override) when
 * one is set, else its account, as in the device command replies. A related object's override
 * is keyed by its main device and its own account (docs/store.md §OID overrides).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError, isVigilError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { ApiDeps, ApiEnv, ApiObjectRow, ApiStorePort } from '../deps.js';
import { DEFAULT_LIMIT, cursorParam, limitParam, parseQuery, receiverParam, textParam, toCursor, toIso } from '../query-params.js';
import { SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';

export const DATABASE_NOT_READY = 'Database is not ready';

export const OBJECT_PARAMS = {
  receiver: receiverParam,
  account: textParam(64),
  cursor: cursorParam,
  limit: limitParam,
};

/** A store that is closed or failing is 503 (as PUT /api/oid-override); anything else 500 `E_3`. */
export function listingFailure(c: Context<ApiEnv>, logger: Logger, what: string, err: unknown): Response {
  logger.error(`${what} listing failed`, { error: describeError(err) });
  if (isVigilError(err, 'STORE_UNAVAILABLE') || isVigilError(err, 'STORE_FAILURE')) return c.text(DATABASE_NOT_READY, 503);
  return c.text(SERVER_FAILURE, 500);
}

export function objectItem(o: ApiObjectRow, overrideOid: string | null): Record<string, unknown> {
  return {
    id: o.id,
    uid: o.uid,
    account: o.account,
    oid: overrideOid ?? o.account,
    override_oid: overrideOid,
    hw_id: o.hwId,
    main_object_id: o.mainObjectId,
    receiver_id: o.receiverId,
    transport: o.transport,
    remote_address: o.remoteAddress,
    first_seen: toIso(o.firstSeen),
    last_seen: toIso(o.lastSeen),
    last_ping: toIso(o.lastPing),
    connection_state: o.connectionState,
  };
}

/** The override of each item; main devices of related objects are read once per page. */
export function objectOverrides(store: Pick<ApiStorePort, 'objects' | 'overrides'>, items: readonly ApiObjectRow[]): (string | null)[] {
  const mains = new Map<number, ApiObjectRow | null>(items.map((o) => [o.id, o]));
  return items.map((o) => {
    if (o.mainObjectId === null) return store.overrides.resolve({ uid: o.uid, account: o.account }, null);
    if (!mains.has(o.mainObjectId)) mains.set(o.mainObjectId, store.objects.get(o.mainObjectId));
    const main = mains.get(o.mainObjectId);
    return main ? store.overrides.resolve({ uid: main.uid, account: main.account }, o.account) : null;
  });
}

export function registerObjects(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('objects');
  const { store } = deps;

  function list(c: Context<ApiEnv>): Response {
    const parsed = parseQuery(new URL(c.req.url).searchParams, OBJECT_PARAMS);
    if (!parsed.ok) return c.text(parsed.errors.join('\n'), 400);
    const q = parsed.values;
    try {
      const page = store.objects.list({
        receiverIds: c.get('principal').visibleReceivers,
        limit: q.limit ?? DEFAULT_LIMIT,
        ...(q.receiver !== undefined && { receiverId: q.receiver }),
        ...(q.account !== undefined && { account: q.account }),
        ...(q.cursor !== undefined && { before: q.cursor }),
      });
      const overrides = objectOverrides(store, page.items);
      const items = page.items.map((o, i) => objectItem(o, overrides[i]!));
      return c.json({ items, next_cursor: toCursor(page.nextCursor) });
    } catch (err) {
      return listingFailure(c, logger, 'objects', err);
    }
  }

  addRoute(app, { path: '/api/objects', style: 'text', auth, scope: 'objects', methods: { GET: list, HEAD: list } });
}
