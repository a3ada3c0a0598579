/**
 * Listing the objects (GET /api/objects and the page's /objects): the one path from a caller to
 * the object list. Order of rules (docs/api.md "Objects and events"):
 *   1. scope `objects`                                                       -> forbidden
 *   2. the parameters (strict, as for events)                                -> invalid, one line each
 *   3. the caller's visible receivers, applied by the store in SQL           -> ok
 * Each object comes with the override OID the outputs send for it: a related object's override is
 * keyed by its main device and its own account (docs/store.md §OID overrides).
 * A closed or failing store is not-ready; any other failure is thrown (both logged here).
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ApiListFilter, ApiObjectRow, ApiStorePort } from './ports.js';
import {
  DEFAULT_LIMIT,
  cursorParam,
  limitParam,
  parseQuery,
  receiverParam,
  textParam,
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

export const OBJECTS_SCOPE = 'objects';

export const OBJECT_PARAMS = {
  receiver: receiverParam,
  account: textParam(64),
  cursor: cursorParam,
  limit: limitParam,
};

/** The page's extra parameter: `q`, the end of a UID or an account (the store's search). */
export const SEARCH_PARAMS = { ...OBJECT_PARAMS, q: textParam(64) };

export type ObjectQuery = ParsedQuery<typeof SEARCH_PARAMS>;

type ObjectStore = Pick<ApiStorePort, 'overrides'> & {
  readonly objects: Pick<ApiStorePort['objects'], 'get'> & {
    list(filter: ApiListFilter & { account?: string; connectionState?: string; search?: string }): {
      items: ApiObjectRow[];
      nextCursor: number | null;
    };
  };
};

export interface ObjectsDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

export interface ObjectQueryOptions {
  /** Page size when `limit` is not given (the API's 100; the page shows 50). */
  readonly defaultLimit?: number;
  /** Accept `q` (the page's search box); the API does not. */
  readonly search?: boolean;
  /** On the first page, also list up to this many lost objects (the page shows them first). */
  readonly lostFirst?: number;
}

export interface ListedObject {
  readonly row: ApiObjectRow;
  readonly overrideOid: string | null;
}

export type ObjectQueryOutcome =
  | Forbidden
  | NotReady
  | { readonly kind: 'invalid'; readonly errors: readonly string[] }
  | {
      readonly kind: 'ok';
      readonly query: ObjectQuery;
      readonly items: readonly ListedObject[];
      readonly nextCursor: number | null;
      /** Only with lostFirst, on the first page; else empty. */
      readonly lost: readonly ListedObject[];
    };

export function mayListObjects(principal: Principal): boolean {
  return hasScope(principal, OBJECTS_SCOPE);
}

/** The override of each item; main devices of related objects are read once per page. */
export function objectOverrides(
  store: Pick<ObjectStore, 'objects' | 'overrides'>,
  items: readonly ApiObjectRow[],
): (string | null)[] {
  const mains = new Map<number, ApiObjectRow | null>(items.map((o) => [o.id, o]));
  return items.map((o) => {
    if (o.mainObjectId === null) return store.overrides.resolve({ uid: o.uid, account: o.account }, null);
    if (!mains.has(o.mainObjectId)) mains.set(o.mainObjectId, store.objects.get(o.mainObjectId));
    const main = mains.get(o.mainObjectId);
    return main ? store.overrides.resolve({ uid: main.uid, account: main.account }, o.account) : null;
  });
}

function withOverrides(store: ObjectStore, rows: readonly ApiObjectRow[]): ListedObject[] {
  const overrides = objectOverrides(store, rows);
  return rows.map((row, i) => ({ row, overrideOid: overrides[i]! }));
}

/** `params`: the query string as the caller sent it (the page drops its empty form fields first). */
export function queryObjects(
  deps: ObjectsDeps,
  principal: Principal,
  params: URLSearchParams,
  options: ObjectQueryOptions = {},
): ObjectQueryOutcome {
  if (!mayListObjects(principal)) return FORBIDDEN;
  const parsed = parseQuery(params, options.search ? SEARCH_PARAMS : OBJECT_PARAMS);
  if (!parsed.ok) return { kind: 'invalid', errors: parsed.errors };
  const query = parsed.values as ObjectQuery;
  const base = {
    receiverIds: principal.visibleReceivers,
    ...(query.receiver !== undefined && { receiverId: query.receiver }),
    ...(query.account !== undefined && { account: query.account }),
    ...(query.q !== undefined && { search: query.q }),
  };
  try {
    const { store } = deps;
    const lostFirst = options.lostFirst !== undefined && query.cursor === undefined;
    const lost = lostFirst
      ? store.objects.list({ ...base, connectionState: 'lost', limit: options.lostFirst! }).items
      : [];
    const limit = query.limit ?? options.defaultLimit ?? DEFAULT_LIMIT;
    const page = store.objects.list({ ...base, limit, ...(query.cursor !== undefined && { before: query.cursor }) });
    return {
      kind: 'ok',
      query,
      items: withOverrides(store, page.items),
      nextCursor: page.nextCursor,
      lost: withOverrides(store, lost),
    };
  } catch (err) {
    deps.logger.error('objects listing failed', { error: describeError(err) });
    if (isStoreProblem(err)) return NOT_READY;
    throw err;
  }
}
