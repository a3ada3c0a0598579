/**
 * Bearer-token authentication and scope checks, as middleware factories in the manner of
 * hono/jwt: options are checked when the middleware is built, a named async function is
 * returned, and the typed context variable `principal` carries the caller to the scope check.
 * Which caller a token stands for is principalResolver's rule (src/services/principal-resolver.ts),
 * the one the page's session applies too.
 */
import type { MiddlewareHandler } from 'hono';
import { hasScope } from '../../services/principal.js';
import { principalResolver, type PrincipalResolverOptions } from '../../services/principal-resolver.js';
import type { ApiEnv } from '../deps.js';
import { FORBIDDEN, NOT_LOGGED_IN, errorResponse } from '../responses.js';

/** `Bearer <token>`, scheme case-insensitive (RFC 6750 §2.1); anything else is no token. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
  return match ? match[1]! : null;
}

export function authenticate(options: PrincipalResolverOptions): MiddlewareHandler<ApiEnv> {
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
