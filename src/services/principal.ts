/**
 * The authenticated caller every service function takes (src/services): who it is, what it may do
 * (scopes) and which receivers it may see. The API's bearer middleware and the page's session
 * middleware build it with the same resolver (principalResolver, principal-resolver.ts), so
 * a service cannot tell which edge called it, and must not need to.
 */
import { isVigilError } from '../core/errors.js';

export interface Principal {
  /** `user:<id>` or `installer`. */
  readonly subject: string;
  readonly userId: number | null;
  /** Effective scopes: token scopes ∩ (user's current scopes ∪ current grants). */
  readonly scopes: ReadonlySet<string>;
  /** Receiver ids the caller may see; null means all. */
  readonly visibleReceivers: readonly number[] | null;
}

/** The scope rule, written once: the API's requireScope and every service function ask it. */
export function hasScope(principal: Principal, scope: string): boolean {
  return principal.scopes.has(scope);
}

/**
 * The scope of every operation on the box itself (system facts, backup, restore, restart, update,
 * reboot): the same view downloads every secret of the box (docs/backup.md "API").
 */
export const SYSTEM_SCOPE = 'system_update';

export function mayUpdateSystem(principal: Principal): boolean {
  return hasScope(principal, SYSTEM_SCOPE);
}

/** The outcome of an operation the caller's scopes do not allow (API 403, page "Not allowed"). */
export interface Forbidden {
  readonly kind: 'forbidden';
}

export const FORBIDDEN: Forbidden = Object.freeze({ kind: 'forbidden' as const });

/** The outcome of an operation the database cannot serve now (503 `Database is not ready`). */
export interface NotReady {
  readonly kind: 'not-ready';
}

export const NOT_READY: NotReady = Object.freeze({ kind: 'not-ready' as const });

/** The contract's words for it (API 503 body, the page's notice). */
export const DATABASE_NOT_READY = 'Database is not ready';

/** A closed or failing store: the caller may try again later; anything else is a server failure. */
export function isStoreProblem(err: unknown): boolean {
  return isVigilError(err, 'STORE_UNAVAILABLE') || isVigilError(err, 'STORE_FAILURE');
}
