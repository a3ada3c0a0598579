/** @jsxImportSource hono/jsx */
/**
 * GET /events (scope `events`): the journal through queryEvents (src/services/events-service.ts),
 * the function GET /api/events calls, and GET /events/live: the live tail as Server-Sent Events.
 * The tail follows the journal with an EventFollower (src/services/event-follower.ts, shared with
 * GET /api/events/stream): the same filters and visible receivers as GET /api/events, applied in
 * SQL, read forward whenever the ingest announces stored events, so it shows exactly what the API
 * would list for this user.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { EVENT_PARAMS, eventFilter } from '../../services/events-service.js';
import { eventItem } from '../../services/listing-items.js';
import { cursorParam, toCursor } from '../../services/query-params.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import {
  errorsByParam,
  filledFilters,
  listingLinks,
  listingProblem,
  pageParams,
  pageQuery,
  queryString,
} from '../query.js';
import { queryEvents } from '../../services/events-service.js';
import { EventsView, type EventRowView } from '../views/events-view.js';
import { readSession } from '../session.js';
import { liveAuthorityDeps } from '../../services/live-authority-deps.js';
import { LiveAuthority } from '../../services/live-authority.js';
import { EventFollower } from '../../services/event-follower.js';

export const PAGE_SIZE = 50;
const KEEPALIVE_MS = 20_000;

const FILTER_KEYS = ['account', 'receiver', 'code', 'from', 'to'] as const;
/** The API's parameters, plus `after` for the live stream: the newest id the page already shows. */
const LIVE_PARAMS = { ...EVENT_PARAMS, after: cursorParam };

export function registerEvents(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const logger = deps.logger.child('web:events');
  const service = { store: deps.store, logger };
  const authorityDeps = liveAuthorityDeps(deps, logger);
  const followerDeps = { store: deps.store, onEventStored: deps.onEventStored, logger };

  function parse(c: Context<WebEnv>) {
    const { result, raw } = pageQuery(c.req.url, LIVE_PARAMS);
    if (!result.ok) return { ok: false as const, raw, errors: errorsByParam(result.errors) };
    const q = result.values;
    if (q.from !== undefined && q.to !== undefined && q.to < q.from)
      return { ok: false as const, raw, errors: { to: ['must not be before from'] } };
    return { ok: true as const, raw, q };
  }

  web.get('/events', session, (c) => {
    const { params, raw } = pageParams(c.req.url);
    const outcome = queryEvents(service, c.get('principal'), params, {
      defaultLimit: PAGE_SIZE,
      extraParams: { after: cursorParam },
    });
    if (outcome.kind === 'forbidden') return forbidden(c, deps, '/events');
    const filters = filledFilters(raw, FILTER_KEYS);
    if (outcome.kind !== 'ok') {
      const { errors, status } = listingProblem(outcome, '');
      const props = { filters, errors, rows: [], olderHref: null, firstHref: null, liveHref: null };
      return view(c, deps, 'Events', '/events', <EventsView {...props} />, status);
    }
    const rows: EventRowView[] = outcome.items.map(eventItem);
    const firstPage = outcome.query.cursor === undefined;
    return view(
      c,
      deps,
      'Events',
      '/events',
      <EventsView
        filters={filters}
        errors={{}}
        rows={rows}
        {...listingLinks('/events', filters, toCursor(outcome.nextCursor), firstPage)}
        liveHref={firstPage ? `/events/live${queryString({ ...filters, after: rows[0]?.id })}` : null}
      />,
    );
  });

  web.get('/events/live', session, async (c) => {
    const principal = c.get('principal');
    if (!principal.scopes.has('events')) return c.text('FORBIDDEN', 403);
    const parsed = parse(c);
    if (!parsed.ok || parsed.q.cursor !== undefined) return c.text('Invalid request', 400);
    const q = parsed.q;
    // Re-checked before every read and every RECHECK_MS: revocation ends the stream (#28.3).
    const authority = await LiveAuthority.open(authorityDeps, readSession(c) ?? '', principal, 'events');
    if (!authority) return c.text('NOT_LOGGED_IN', 401);
    return streamSSE(c, async (stream) => {
      // Everything after what the page showed (no gap between the page and the stream).
      const newestNow =
        deps.store.events.query(eventFilter({ ...q, limit: 1 }, principal.visibleReceivers)).items[0]?.id ?? 0;
      const after = q.after ?? newestNow;
      const follower = new EventFollower(followerDeps, {
        query: q,
        visibleReceivers: principal.visibleReceivers,
        after,
        authority,
        send: (e) => stream.writeSSE({ event: 'event', id: String(e.id), data: JSON.stringify(eventItem(e)) }),
      });
      const keepAlive = setInterval(() => void stream.write(': keep-alive\n\n').catch(() => undefined), KEEPALIVE_MS);
      await stream.writeSSE({ event: 'ready', data: JSON.stringify({ after }) });
      stream.onAbort(() => follower.stop('closed'));
      follower.start();
      const reason = await follower.ended;
      if (reason === 'revoked' && !stream.aborted)
        await stream.writeSSE({ event: 'ended', data: '{"reason":"session"}' }).catch(() => undefined);
      clearInterval(keepAlive);
    });
  });
}
