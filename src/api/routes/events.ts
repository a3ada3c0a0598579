/**
 * GET /api/events (scope `events`): the event journal, newest first, paged by cursor.
 * The contract lists `events` as an assignable scope and leaves the operations and the fields of
 * an event record "not shown" (§Authentication 4, §Events); every choice here is in docs/api.md
 * "Objects and events". The rules (scope, parameters, visible receivers) live in queryEvents
 * (src/services/events-service.ts), which the page's /events calls too.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { queryEvents } from '../../services/events-service.js';
import { eventItem } from '../../services/listing-items.js';
import { toCursor } from '../../services/query-params.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { addRoute } from '../route.js';
import { listingAnswer } from './objects.js';

export function registerEvents(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { store: deps.store, logger: deps.logger.child('events') };

  function list(c: Context<ApiEnv>): Response {
    return listingAnswer(c, () => {
      const outcome = queryEvents(service, c.get('principal'), new URL(c.req.url).searchParams);
      if (outcome.kind !== 'ok') return outcome;
      return { kind: 'ok', body: { items: outcome.items.map(eventItem), next_cursor: toCursor(outcome.nextCursor) } };
    });
  }

  addRoute(app, { path: '/api/events', style: 'text', auth, scope: 'events', methods: { GET: list, HEAD: list } });
}
