/**
 * Querying the event journal (GET /api/events and the page's /events): the one path from a caller
 * to the journal. Order of rules (docs/api.md "Objects and events"):
 *   1. scope `events`                                              -> forbidden
 *   2. the parameters (strict: an unknown or misspelt one is an error, never ignored, because an
 *      ignored filter answers with MORE data), and `to` not before `from` -> invalid, one line each
 *   3. the caller's visible receivers, always applied by the store: `receiver=` of a hidden
 *      receiver is an empty page (a refusal would confirm that it exists), and the gateway's own
 *      events (no receiver) appear only for callers who see all receivers   -> ok
 * A closed or failing store is not-ready; any other failure is thrown (both logged here).
 * The page's live tail (/events/live) and the API's stream (/api/events/stream) read the journal
 * forward with forwardFilter, the same filter (src/services/event-follower.ts).
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ApiEventRow, ApiStorePort } from './ports.js';
import {
  DEFAULT_LIMIT,
  codeParam,
  cursorParam,
  instantParam,
  limitParam,
  parseQuery,
  receiverParam,
  textParam,
  type ParamParser,
  type ParsedQuery,
} from './query-params.js';
import {
  FORBIDDEN,
  NOT_READY,
  hasScope,
  isStoreProblem,
  type Forbidden,
  type NotReady,
  type Principal,
} from './principal.js';

export const EVENTS_SCOPE = 'events';

export const EVENT_PARAMS = {
  receiver: receiverParam,
  account: textParam(64),
  from: instantParam,
  to: instantParam,
  code: codeParam,
  cursor: cursorParam,
  limit: limitParam,
};

export type EventQuery = ParsedQuery<typeof EVENT_PARAMS>;

export interface EventsDeps {
  readonly store: Pick<ApiStorePort, 'events'>;
  readonly logger: Logger;
}

export interface EventQueryOptions {
  /** Page size when `limit` is not given (the API's 100; the page shows 50). */
  readonly defaultLimit?: number;
  /** Parameters an edge accepts beyond the API's, parsed and otherwise ignored here. */
  readonly extraParams?: Readonly<Record<string, ParamParser<unknown>>>;
}

export type EventQueryOutcome =
  | Forbidden
  | NotReady
  | { readonly kind: 'invalid'; readonly errors: readonly string[] }
  | {
      readonly kind: 'ok';
      readonly query: EventQuery;
      readonly items: readonly ApiEventRow[];
      readonly nextCursor: number | null;
    };

export function mayReadEvents(principal: Principal): boolean {
  return hasScope(principal, EVENTS_SCOPE);
}

/** The store query for parsed parameters; the caller's visible receivers always apply. */
export function eventFilter(q: EventQuery, visibleReceivers: readonly number[] | null) {
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

/**
 * The store query that reads forward: events above `after`, oldest first (the event stream's
 * backlog and live reads). The same filters and visible receivers as eventFilter; no `before`.
 */
export function forwardFilter(q: EventQuery, visibleReceivers: readonly number[] | null, after: number, limit: number) {
  const { before: _before, ...filter } = eventFilter({ ...q, limit }, visibleReceivers);
  return { ...filter, after };
}

export type EventParseOutcome<P extends Readonly<Record<string, ParamParser<unknown>>>> =
  | Forbidden
  | { readonly kind: 'invalid'; readonly errors: readonly string[] }
  | { readonly kind: 'ok'; readonly query: ParsedQuery<P> };

/**
 * Rules 1 and 2 for any edge that reads events: the scope, then the parameters with `parsers`
 * (EVENT_PARAMS, or an edge's own set built from it such as the stream's, which has no page).
 */
export function parseEventQuery<P extends Readonly<Record<string, ParamParser<unknown>>>>(
  principal: Principal,
  params: URLSearchParams,
  parsers: P,
): EventParseOutcome<P> {
  if (!mayReadEvents(principal)) return FORBIDDEN;
  const parsed = parseQuery(params, parsers);
  if (!parsed.ok) return { kind: 'invalid', errors: parsed.errors };
  const query = parsed.values as ParsedQuery<P> & { from?: number; to?: number };
  // Half-open [from, to): equal bounds are a valid, empty window; reversed ones are a mistake.
  if (query.from !== undefined && query.to !== undefined && query.to < query.from)
    return { kind: 'invalid', errors: ['to: must not be before from'] };
  return { kind: 'ok', query };
}

/** `params`: the query string as the caller sent it (the page drops its empty form fields first). */
export function queryEvents(
  deps: EventsDeps,
  principal: Principal,
  params: URLSearchParams,
  options: EventQueryOptions = {},
): EventQueryOutcome {
  const parsed = parseEventQuery(principal, params, { ...EVENT_PARAMS, ...options.extraParams });
  if (parsed.kind !== 'ok') return parsed;
  const query = parsed.query as EventQuery;
  try {
    const page = deps.store.events.query(
      eventFilter(
        { ...query, limit: query.limit ?? options.defaultLimit ?? DEFAULT_LIMIT },
        principal.visibleReceivers,
      ),
    );
    return { kind: 'ok', query, items: page.items, nextCursor: page.nextCursor };
  } catch (err) {
    deps.logger.error('events listing failed', { error: describeError(err) });
    if (isStoreProblem(err)) return NOT_READY;
    throw err;
  }
}
