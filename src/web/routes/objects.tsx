/** @jsxImportSource hono/jsx */
/**
 * GET /objects (scope `objects`): the store's object listing as GET /api/objects reads it (visible
 * receivers in SQL, the same override resolution), lost objects first (the store's
 * connection-state filter), then every object newest first with the API's cursors.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { OBJECT_PARAMS, objectItem, objectOverrides } from '../../api/routes/objects.js';
import { textParam, toCursor } from '../../api/query-params.js';
import type { ApiObjectRow } from '../../api/deps.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { errorsByParam, pageQuery, queryString } from '../query.js';
import { ObjectsView, type ObjectRowView } from '../views/objects-view.js';

const PAGE_SIZE = 50;
const LOST_SHOWN = 200;
const PARAMS = { ...OBJECT_PARAMS, q: textParam(64) };

export function registerObjects(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const { store } = deps;
  const rows = (items: ApiObjectRow[]): ObjectRowView[] => {
    const overrides = objectOverrides(store, items);
    return items.map((o, i) => objectItem(o, overrides[i]!) as unknown as ObjectRowView);
  };

  web.get('/objects', session, (c) => {
    const principal = c.get('principal');
    if (!principal.scopes.has('objects')) return forbidden(c, deps, '/objects');
    const { result, raw } = pageQuery(c.req.url, PARAMS);
    const filters = Object.fromEntries(['q', 'receiver'].filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]!]));
    const now = deps.clock.now();
    if (!result.ok) {
      const props = { filters, errors: errorsByParam(result.errors), lost: [], rows: [], olderHref: null, firstHref: null, now };
      return view(c, deps, 'Objects', '/objects', <ObjectsView {...props} />, 400);
    }
    const q = result.values;
    const base = {
      receiverIds: principal.visibleReceivers,
      ...(q.receiver !== undefined && { receiverId: q.receiver }),
      ...(q.account !== undefined && { account: q.account }),
      ...(q.q !== undefined && { search: q.q }),
    };
    const lost = q.cursor === undefined ? store.objects.list({ ...base, connectionState: 'lost', limit: LOST_SHOWN }).items : [];
    const page = store.objects.list({ ...base, limit: q.limit ?? PAGE_SIZE, ...(q.cursor !== undefined && { before: q.cursor }) });
    const next = toCursor(page.nextCursor);
    return view(
      c,
      deps,
      'Objects',
      '/objects',
      <ObjectsView
        filters={filters}
        errors={{}}
        lost={rows(lost)}
        rows={rows(page.items)}
        olderHref={next === null ? null : `/objects${queryString({ ...filters, cursor: next })}`}
        firstHref={q.cursor === undefined ? null : `/objects${queryString(filters)}`}
        now={now}
      />,
    );
  });
}
