/**
 * Users and grants (GET/PUT /api/users/:id/grants and the page's /users). Reading user records
 * needs `settings` (as GET /api/settings shows them); reading and changing the privileged grants
 * needs `users` (docs/security.md "Grants"). Grants live in the store and are re-read on every
 * request, so a change reaches the user's next request. User ids are settings ids written in
 * decimal; anything else is an unknown user.
 */
import { describeError, isVigilError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { GRANTABLE_SCOPES } from '../auth/scopes.js';
import type { ApiSettingsPort, ApiStorePort, ApiUser } from './ports.js';
import {
  FORBIDDEN,
  NOT_READY,
  hasScope,
  isStoreProblem,
  type Forbidden,
  type NotReady,
  type Principal,
} from './principal.js';

export const GRANTS_SCOPE = 'users';
export const RECORDS_SCOPE = 'settings';

export interface UsersDeps {
  readonly settings: Pick<ApiSettingsPort, 'current'>;
  readonly store: Pick<ApiStorePort, 'grants'> & { readonly write: Pick<ApiStorePort['write'], 'grants'> };
  readonly logger: Logger;
}

export interface UserListing {
  readonly id: number;
  /** The user record; null when the caller lacks `settings`. */
  readonly record: ApiUser | null;
  /** The grants, in canonical order; null when the caller lacks `users`. */
  readonly grants: readonly string[] | null;
}

export type ListUsersOutcome = Forbidden | { readonly kind: 'ok'; readonly users: readonly UserListing[] };
export type GrantsOutcome =
  | Forbidden
  | NotReady
  | { readonly kind: 'not-found' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'ok'; readonly userId: number; readonly scopes: readonly string[] };

function findUser(deps: Pick<UsersDeps, 'settings'>, idText: string | undefined): ApiUser | undefined {
  if (!idText || !/^[1-9][0-9]{0,14}$/.test(idText)) return undefined;
  const id = Number(idText);
  return deps.settings.current().users.find((u) => u.id === id);
}

function canonical(scopes: readonly string[]): string[] {
  return GRANTABLE_SCOPES.filter((s) => scopes.includes(s));
}

/** The requested scopes, de-duplicated in canonical order, or null when the body is wrong. */
export function parseGrantBody(body: unknown): string[] | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  if (Object.keys(body).some((k) => k !== 'scopes')) return null;
  const { scopes } = body as { scopes?: unknown };
  if (!Array.isArray(scopes)) return null;
  const known: readonly string[] = GRANTABLE_SCOPES;
  if (!scopes.every((s) => typeof s === 'string' && known.includes(s))) return null;
  return canonical(scopes as string[]);
}

/** Every user, with only the parts the caller's scopes open (the page's users view). */
export function listUsers(deps: Pick<UsersDeps, 'settings' | 'store'>, principal: Principal): ListUsersOutcome {
  const records = hasScope(principal, RECORDS_SCOPE);
  const grants = hasScope(principal, GRANTS_SCOPE);
  if (!records && !grants) return FORBIDDEN;
  const users = deps.settings.current().users.map((u) => ({
    id: u.id,
    record: records ? u : null,
    grants: grants ? canonical(deps.store.grants.get(u.id)) : null,
  }));
  return { kind: 'ok', users };
}

function failed(deps: UsersDeps, err: unknown): GrantsOutcome {
  deps.logger.error('grants store failed', { error: describeError(err) });
  if (isVigilError(err, 'NOT_FOUND')) return { kind: 'not-found' };
  if (isStoreProblem(err)) return NOT_READY;
  throw err;
}

export function readUserGrants(deps: UsersDeps, principal: Principal, idText: string | undefined): GrantsOutcome {
  if (!hasScope(principal, GRANTS_SCOPE)) return FORBIDDEN;
  const user = findUser(deps, idText);
  if (!user) return { kind: 'not-found' };
  try {
    return { kind: 'ok', userId: user.id, scopes: canonical(deps.store.grants.get(user.id)) };
  } catch (err) {
    return failed(deps, err);
  }
}

/** Replaces the user's grants with `body.scopes` (`{"scopes": [...]}`, nothing else). */
export async function setUserGrants(
  deps: UsersDeps,
  principal: Principal,
  idText: string | undefined,
  body: unknown,
): Promise<GrantsOutcome> {
  if (!hasScope(principal, GRANTS_SCOPE)) return FORBIDDEN;
  const user = findUser(deps, idText);
  if (!user) return { kind: 'not-found' };
  const scopes = parseGrantBody(body);
  if (!scopes) return { kind: 'invalid' };
  try {
    await deps.store.write.grants.set(user.id, scopes, principal.subject);
  } catch (err) {
    return failed(deps, err);
  }
  deps.logger.info('grants set', { by: principal.subject, user_id: user.id, scopes: scopes.join(',') });
  return { kind: 'ok', userId: user.id, scopes };
}
