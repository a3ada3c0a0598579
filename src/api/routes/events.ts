/**
 * GET /api/events (scope `events`): the event journal, newest first, paged by cursor.
 * The contract lists `events` as an assignable scope and leaves the operations and the fields of
 * an event record "not shown" (§Authentication 4, §Events); every choice here is in docs/api.md
 * "Objects and events".
 *
 * Visibility: the caller's visible receivers are always applied by the store, so `receiver=` of
 * a hidden receiver is an empty page (not a 403: a 403 would confirm that the receiver exists),
 * and the gateway's own events (no receiver) appear only for callers who see all receivers.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ApiDeps, ApiEnv, ApiEventRow } from '../deps.js';
import {
  DEFAULT_LIMIT,
  codeParam,
  cursorParam,
  instantParam,
  limitParam,
  parseQuery,
  type ParsedQuery,
  receiverParam,
  textParam,
  toCursor,
  toIso,
} from '../query-params.js';
import { addRoute } from '../route.js';
import { listingFailure } from './objects.js';

export const EVENT_PARAMS = {
  receiver: receiverParam,
  account: textParam(64),
  from: instantParam,
  to: instantParam,
  code: codeParam,
  cursor: cursorParam,
  limit: limitParam,
};

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

/** The store query for parsed parameters; the caller's visible receivers always apply (API and page alike). */
export function eventFilter(q: ParsedQuery<typeof EVENT_PARAMS>, visibleReceivers: readonly number[] | null) {
  return {
    receiverIds: visibleReceivers,
    limit: q.limit ?? DEFAULT_LIMIT,
    ...(q.receiver !== undefined && { receiverId: q.receiver }),
    ...(q.account !== undefined && { account: q.account }),
    ...(q.from !== undefined && { from: q.from }),
    ...(q.to !== undefined && { to: q.to }),
    ...(q.code !== undefined && { code: q.code }),
    ...(q.cursor !== undefined && { before: q.cursor }),
  };
}

export function registerEvents(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('events');

  function list(c: Context<ApiEnv>): Response {
    const parsed = parseQuery(new URL(c.req.url).searchParams, EVENT_PARAMS);
    if (!parsed.ok) return c.text(parsed.errors.join('\n'), 400);
    const q = parsed.values;
    // Half-open [from, to): equal bounds are a valid, empty window; reversed ones are a mistake.
    if (q.from !== undefined && q.to !== undefined && q.to < q.from) return c.text('to: must not be before from', 400);
    try {
      const page = deps.store.events.query(eventFilter(q, c.get('principal').visibleReceivers));
      return c.json({ items: page.items.map(eventItem), next_cursor: toCursor(page.nextCursor) });
    } catch (err) {
      return listingFailure(c, logger, 'events', err);
    }
  }

  addRoute(app, { path: '/api/events', style: 'text', auth, scope: 'events', methods: { GET: list, HEAD: list } });
}
