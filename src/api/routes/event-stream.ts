/**
 * GET /api/events/stream (scope `events`): the event journal as Server-Sent Events (WHATWG HTML
 * §9.2), for integrations that follow events without polling. The contract leaves pushed events
 * "not shown" (§Events); every choice here is in docs/api.md "Event stream".
 *
 * The route only translates HTTP. The order of checks is addRoute's (401, 405, 403); the filters
 * are GET /api/events' own parsers (parseEventQuery) without the page parameters; the events are
 * read by the EventFollower the page's live tail uses (src/services/event-follower.ts), which
 * applies the caller's visible receivers in the store query and re-checks the token's authority
 * (src/services/live-authority.ts) before every read.
 *
 * Resume: each event carries its id in the SSE `id:` field; `Last-Event-ID` (what EventSource
 * sends on reconnect) or `?after=` names the last event the client holds, and the stream starts
 * right above it. The header wins over the parameter: an EventSource reconnects to the URL it
 * opened, with the header naming where it got to.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { describeError } from '../../core/errors.js';
import { EventFollower } from '../../services/event-follower.js';
import { EVENT_PARAMS, eventFilter, parseEventQuery, type EventQuery } from '../../services/events-service.js';
import { LiveAuthority } from '../../services/live-authority.js';
import { liveAuthorityDeps } from '../../services/live-authority-deps.js';
import { isStoreProblem } from '../../services/principal.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { bearerToken } from '../middleware/auth.js';
import { integerParam, parseQuery } from '../../services/query-params.js';
import { FORBIDDEN, NOT_LOGGED_IN, SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';
import { StreamSlots } from '../stream-slots.js';
import { eventItem } from '../../services/listing-items.js';
import { DATABASE_NOT_READY } from '../../services/principal.js';

export interface EventStreamLimits {
  /** Open streams per user (or per installer token). */
  readonly perUser: number;
  /** Open streams in all. */
  readonly total: number;
  /** A `: ping` comment this often keeps proxies and clients from timing the stream out. */
  readonly heartbeatMs: number;
  /** A write the client does not take within this ends the stream (the slow-client bound). */
  readonly stallMs: number;
  /** Events per journal read. */
  readonly pageSize: number;
}

export const EVENT_STREAM_LIMITS: EventStreamLimits = {
  perUser: 4,
  total: 32,
  heartbeatMs: 20_000,
  stallMs: 30_000,
  pageSize: 200,
};

export const TOO_MANY_STREAMS = 'TOO_MANY_STREAMS';

/** `after` and Last-Event-ID: 0 is "from the oldest event kept". */
const afterParam = integerParam(0, Number.MAX_SAFE_INTEGER);
/** GET /api/events' filters; `cursor` and `limit` page a listing and mean nothing in a stream. */
const { cursor: _cursor, limit: _limit, ...FILTER_PARAMS } = EVENT_PARAMS;
const STREAM_PARAMS = { ...FILTER_PARAMS, after: afterParam };

export function registerEventStream(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const logger = deps.logger.child('events:stream');
  const limits = { ...EVENT_STREAM_LIMITS, ...deps.eventStream };
  const slots = new StreamSlots(limits);
  const authorityDeps = liveAuthorityDeps(deps, logger);
  const followerDeps = { store: deps.store, ...(deps.onEventStored && { onEventStored: deps.onEventStored }), logger };

  /** Where the client got to: Last-Event-ID first, then ?after=; undefined for "from now". */
  function resumePoint(
    c: Context<ApiEnv>,
    query: { after?: number },
  ): { ok: true; after: number | undefined } | { ok: false; error: string } {
    const header = c.req.header('Last-Event-ID');
    if (header === undefined || header === '') return { ok: true, after: query.after };
    const parsed = parseQuery(new URLSearchParams({ 'Last-Event-ID': header }), { 'Last-Event-ID': afterParam });
    return parsed.ok
      ? { ok: true, after: parsed.values['Last-Event-ID'] }
      : { ok: false, error: parsed.errors.join('\n') };
  }

  async function open(c: Context<ApiEnv>): Promise<Response> {
    const principal = c.get('principal');
    const parsed = parseEventQuery(principal, new URL(c.req.url).searchParams, STREAM_PARAMS);
    if (parsed.kind === 'forbidden') return c.text(FORBIDDEN, 403);
    if (parsed.kind === 'invalid') return c.text(parsed.errors.join('\n'), 400);
    const resume = resumePoint(c, parsed.query);
    if (!resume.ok) return c.text(resume.error, 400);
    const query: EventQuery = parsed.query;
    let after: number;
    try {
      // "From now": the newest event this caller may see, filters aside (what GET /api/events shows
      // first), so a rare account's stream does not start by re-scanning everything since its last event.
      after =
        resume.after ??
        deps.store.events.query(eventFilter({ limit: 1 }, principal.visibleReceivers)).items[0]?.id ??
        0;
    } catch (err) {
      logger.error('event stream could not read the journal', { error: describeError(err) });
      return isStoreProblem(err) ? c.text(DATABASE_NOT_READY, 503) : c.text(SERVER_FAILURE, 500);
    }
    const authority = await LiveAuthority.open(
      authorityDeps,
      bearerToken(c.req.header('Authorization')) ?? '',
      principal,
      'events',
    );
    if (!authority) return c.text(NOT_LOGGED_IN, 401);
    const release = slots.take(principal.subject);
    if (!release) {
      c.header('Retry-After', '5');
      return c.text(TOO_MANY_STREAMS, 429);
    }
    const socket = c.env?.incoming?.socket;
    return streamSSE(c, async (stream) => {
      const follower = new EventFollower(followerDeps, {
        query,
        visibleReceivers: principal.visibleReceivers,
        after,
        authority,
        pageSize: limits.pageSize,
        stallMs: limits.stallMs,
        send: (e) => stream.writeSSE({ id: String(e.id), data: JSON.stringify(eventItem(e)) }),
      });
      const heartbeat = setInterval(() => void stream.write(': ping\n\n'), limits.heartbeatMs);
      try {
        await stream.writeSSE({ event: 'ready', data: JSON.stringify({ after }) });
        stream.onAbort(() => follower.stop('closed'));
        follower.start();
        const reason = await follower.ended;
        logger.debug('event stream ended', { subject: principal.subject, reason, last: follower.lastExamined });
        if (reason === 'revoked' && !stream.aborted)
          await stream.writeSSE({ event: 'ended', data: '{"reason":"revoked"}' });
        // A client that stopped reading: its socket holds unsent bytes, so it is cut, not ended.
        if (reason === 'stalled') socket?.destroy?.();
      } finally {
        clearInterval(heartbeat);
        release();
      }
    });
  }

  addRoute(app, { path: '/api/events/stream', style: 'text', auth, scope: 'events', methods: { GET: open } });
}
