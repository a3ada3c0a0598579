/**
 * GET /api/events (scope `events`): the event journal, newest first, paged by cursor.
 * The contract lists `events` as an assignable scope and leaves the operations and the fields of
 * an event record "not shown" (§Authentication 4, §Events); every choice here is in docs/api.md
 * "Objects and events". The rules (scope, parameters, visible receivers) live in queryEvents
 * (src/services/events-service.ts), which the page's /events calls too.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { queryEvents } from '../../services/events-service.js';
import type { ApiDeps, ApiEnv, ApiEventRow } from '../deps.js';
import { toCursor, toIso } from '../query-params.js';
import { addRoute } from '../route.js';
import { listingAnswer } from './objects.js';

/** Re-exported for the page's live tail, which reads the journal with the same filter. */
export { EVENT_PARAMS, eventFilter } from '../../services/events-service.js';

/** One journal row as the API shows it; `raw` is the frame as upper-case hex (lossless for binary frames). */
export function eventItem(e: ApiEventRow): Record<string, unknown> {
  return {
    id: e.id,
    received_at: toIso(e.receivedAt),
    device_time: toIso(e.deviceTime),
    receiver_id: e.receiverId,
    transport: e.transport,
    remote_address: e.remoteAddress,
    account: e.account,
    object_id: e.objectId,
    protocol: e.protocol,
    encrypted: e.encrypted,
    event_class: e.eventClass,
    qualifier: e.qualifier,
    code: e.code,
    group_no: e.groupNo,
    zone_no: e.zoneNo,
    text: e.text,
    flags: e.flags,
    raw: Buffer.from(e.raw.buffer, e.raw.byteOffset, e.raw.byteLength).toString('hex').toUpperCase(),
  };
}

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
