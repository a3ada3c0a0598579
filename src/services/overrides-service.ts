/**
 * OID overrides (PUT /api/oid-override and the page's /overrides): the one path that sets an
 * override, whichever edge is asked. Order of rules (docs/api.md "OID override"):
 *   1. scope `objects`                                          -> forbidden
 *   2. the request (parseOidOverride: rules 1-6 of the contract) -> invalid, with its message
 *   3. the store can write                                      -> not-ready
 *   4. the device is on a receiver the caller sees (overrideAllowed; an unknown device is refused
 *      the same way, so the answer never tells whether it exists) -> not-visible
 *   5. stored                                                   -> ok
 * A store that fails while checking or writing is not-ready; any other failure is thrown.
 */
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ApiStorePort } from './ports.js';
import { parseOidOverride, type OidOverride } from './oid-override-request.js';
import { overrideAllowed } from './override-visibility.js';
import {
  FORBIDDEN,
  NOT_READY,
  hasScope,
  isStoreProblem,
  type Forbidden,
  type NotReady,
  type Principal,
} from './principal.js';

export const OVERRIDE_SCOPE = 'objects';
/**
 * The words of an override of a device the caller cannot see (or that does not exist, for a
 * caller limited to some receivers): the contract's generic 400, so it never tells the two apart.
 */
export const NOT_VISIBLE = 'Invalid data';

/** One stored OID override, as the store lists them. */
export interface StoredOverride {
  readonly matchKind: 'uid' | 'oid';
  readonly matchValue: string;
  readonly relatedOid: string | null;
  readonly overrideOid: string;
  readonly updatedAt: number | null;
}

export interface OverridesDeps {
  readonly store: Pick<ApiStorePort, 'objects' | 'overrides' | 'isWritable'> & {
    readonly write: Pick<ApiStorePort['write'], 'overrides'>;
  };
  readonly logger: Logger;
}

export type SetOverrideOutcome =
  | Forbidden
  | NotReady
  | { readonly kind: 'invalid'; readonly error: string }
  | { readonly kind: 'not-visible' }
  | { readonly kind: 'ok'; readonly override: OidOverride };

export async function setOverride(
  deps: OverridesDeps,
  principal: Principal,
  body: unknown,
): Promise<SetOverrideOutcome> {
  if (!hasScope(principal, OVERRIDE_SCOPE)) return FORBIDDEN;
  const verdict = parseOidOverride(body);
  if (!verdict.ok) return { kind: 'invalid', error: verdict.error };
  const override = verdict.value;
  const by = principal.subject;
  const match = `${override.matchKind}:${override.matchValue}`;
  try {
    if (!(await deps.store.isWritable())) return NOT_READY;
    if (!overrideAllowed(deps.store.objects, override, principal.visibleReceivers)) {
      deps.logger.info('override refused: device not visible to the caller', { by, match });
      return { kind: 'not-visible' };
    }
    await deps.store.write.overrides.set({ ...override });
  } catch (err) {
    deps.logger.error('override not stored', { by, error: describeError(err) });
    if (isStoreProblem(err)) return NOT_READY;
    throw err;
  }
  deps.logger.info('override set', { by, match, related_oid: override.relatedOid, override_oid: override.overrideOid });
  return { kind: 'ok', override };
}

export type ListOverridesOutcome =
  | Forbidden
  | { readonly kind: 'hidden' }
  | { readonly kind: 'ok'; readonly overrides: StoredOverride[] };

/**
 * The overrides in force. They are keyed by UID/OID, not by receiver, so only a caller who sees
 * every receiver may list them (docs/web.md §OID overrides): `hidden` for anyone else.
 */
export function listOverrides(
  deps: { store: { overrides: { list(): StoredOverride[] } } },
  principal: Principal,
): ListOverridesOutcome {
  if (!hasScope(principal, OVERRIDE_SCOPE)) return FORBIDDEN;
  if (principal.visibleReceivers !== null) return { kind: 'hidden' };
  return { kind: 'ok', overrides: deps.store.overrides.list() };
}
