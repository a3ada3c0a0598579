/**
 * Bearer-token authentication and scope checks, as middleware factories in the manner of
 * hono/jwt: options are checked when the middleware is built, a named async function is
 * returned, and the typed context variable `principal` carries the caller to the scope check.
 *
 * A user token is checked against the CURRENT user record on every request (docs/api.md
 * "Tokens"): a deleted user, or a token issued before the user's last password change or before
 * the id was deleted and re-created (token epoch), is 401, and the effective scopes are the
 * token's scopes ∩ (the user's current scopes ∪ the user's current grants), so a scope removed
 * since issue is a 403 at once.
 */
import type { MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { INSTALLER_SUBJECT, parseSubject, type TokenService } from '../../auth/tokens.js';
import { hasScope } from '../../services/principal.js';
import type { ApiEnv, ApiSettingsPort, ApiStorePort, Principal } from '../deps.js';
import { FORBIDDEN, NOT_LOGGED_IN, errorResponse } from '../responses.js';

export interface AuthOptions {
  readonly tokens: TokenService;
  readonly settings: ApiSettingsPort;
  readonly store: ApiStorePort;
  readonly logger: Logger;
}

/** `Bearer <token>`, scheme case-insensitive (RFC 6750 §2.1); anything else is no token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  return match ? match[1]! : null;
}

/** Grants live in the store; when it cannot be read the caller keeps only the user-record scopes. */
export function readGrants(store: ApiStorePort, userId: number, logger: Logger): string[] {
  try {
    return store.grants.get(userId);
  } catch (err) {
    logger.warn('grants unreadable, using none', { user_id: userId, error: describeError(err) });
    return [];
  }
}

/**
 * The caller a token stands for, or null when the token is not acceptable. Shared by the bearer
 * middleware below and the technician's page (src/web), so both apply exactly the same rules.
 */
export function principalResolver(options: AuthOptions): (token: string | null) => Promise<Principal | null> {
  if (!options?.tokens || !options.settings || !options.store || !options.logger) {
    throw new Error('principalResolver() requires tokens, settings, store and logger');
  }
  const { tokens, settings, store, logger } = options;

  return async function resolvePrincipal(token: string | null): Promise<Principal | null> {
    if (!token) return null;
    let claims;
    try {
      claims = await tokens.verifyToken(token);
    } catch (err) {
      logger.debug('token refused', { reason: describeError(err) });
      return null;
    }
    const subject = parseSubject(claims.sub);
    if (!subject) return null;
    // Ended by logout before its expiry (docs/security.md "Logout").
    if (claims.jti !== null && store.revokedTokens.has(claims.jti)) return null;
    if (subject.kind === 'installer') {
      // Made by `vigil token` from the secret itself: exactly the scopes it was issued with.
      return { subject: INSTALLER_SUBJECT, userId: null, scopes: new Set(claims.scopes), visibleReceivers: null };
    }
    const user = settings.current().users.find((u) => u.id === subject.userId);
    if (!user) return null;
    if (claims.epoch !== store.tokenEpochs.get(user.id)) return null;
    const allowed = new Set([...user.scopes, ...readGrants(store, user.id, logger)]);
    return {
      subject: claims.sub,
      userId: user.id,
      scopes: new Set(claims.scopes.filter((s) => allowed.has(s))),
      visibleReceivers: user.visible_receivers.all ? null : [...user.visible_receivers.custom],
    };
  };
}

export function authenticate(options: AuthOptions): MiddlewareHandler<ApiEnv> {
  const resolvePrincipal = principalResolver(options);
  return async function authenticate(c, next) {
    const token = bearerToken(c.req.header('Authorization'));
    const principal = await resolvePrincipal(token);
    if (!principal) {
      // RFC 6750 §3: the challenge; §3.1: invalid_token only when a Bearer token was presented and
      // refused (no header, or another scheme, gets the bare challenge).
      c.header('WWW-Authenticate', token === null ? 'Bearer' : 'Bearer error="invalid_token"');
      return errorResponse(c, 401, NOT_LOGGED_IN);
    }
    c.set('principal', principal);
    await next();
    return undefined;
  };
}

/** 403 `FORBIDDEN` unless the authenticated caller holds `scope`. */
export function requireScope(scope: string): MiddlewareHandler<ApiEnv> {
  if (typeof scope !== 'string' || scope === '') throw new Error('requireScope() requires a scope name');
  return async function requireScope(c, next) {
    const principal = c.get('principal');
    if (!principal || !hasScope(principal, scope)) return errorResponse(c, 403, FORBIDDEN);
    await next();
    return undefined;
  };
}
