/** @jsxImportSource hono/jsx */
/**
 * GET /objects (scope `objects`): queryObjects (src/services/objects-service.ts), the function
 * GET /api/objects calls (scope, parameters, visible receivers in SQL, override resolution), plus
 * the page's search box `q`; lost objects first, then every object newest first with the API's
 * cursors.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { objectItem } from '../../services/listing-items.js';
import { toCursor } from '../../services/query-params.js';
import { queryObjects, type ListedObject } from '../../services/objects-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { filledFilters, listingLinks, listingProblem, pageParams } from '../query.js';
import { ObjectsView, type ObjectRowView } from '../views/objects-view.js';

const PAGE_SIZE = 50;
const LOST_SHOWN = 200;
const FILTER_KEYS = ['q', 'receiver'] as const;

export function registerObjects(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { store: deps.store, logger: deps.logger.child('web:objects') };
  const rows = (items: readonly ListedObject[]): ObjectRowView[] =>
    items.map((o) => objectItem(o.row, o.overrideOid) as unknown as ObjectRowView);

  web.get('/objects', session, (c) => {
    const { params, raw } = pageParams(c.req.url);
    const outcome = queryObjects(service, c.get('principal'), params, {
      defaultLimit: PAGE_SIZE,
      search: true,
      lostFirst: LOST_SHOWN,
    });
    if (outcome.kind === 'forbidden') return forbidden(c, deps, '/objects');
    const filters = filledFilters(raw, FILTER_KEYS);
    const now = deps.clock.now();
    if (outcome.kind !== 'ok') {
      const { errors, status } = listingProblem(outcome, 'q');
      const props = { filters, errors, lost: [], rows: [], olderHref: null, firstHref: null, now };
      return view(c, deps, 'Objects', '/objects', <ObjectsView {...props} />, status);
    }
    return view(
      c,
      deps,
      'Objects',
      '/objects',
      <ObjectsView
        filters={filters}
        errors={{}}
        lost={rows(outcome.lost)}
        rows={rows(outcome.items)}
        {...listingLinks('/objects', filters, toCursor(outcome.nextCursor), outcome.query.cursor === undefined)}
        now={now}
      />,
    );
  });
}
