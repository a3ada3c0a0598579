/**
 * The page's authentication: the session cookie's token is checked by the very resolver the API's
 * bearer middleware uses (principalResolver), so a deleted user, a removed scope or a changed
 * secret ends the page session exactly when it ends the API token.
 *
 *   GET without a valid session   -> 303 to /login (readable pages need a login too)
 *   POST without a valid session  -> 401 page
 *   POST with a foreign Origin or without the session's CSRF token -> 403 page
 */
import type { MiddlewareHandler } from 'hono';
import { principalResolver, type PrincipalResolverOptions } from '../services/principal-resolver.js';
import type { WebEnv } from './web-deps.js';
import { CSRF_FIELD, CSRF_HEADER, csrfFor, readSession, sameOrigin, sameSecret } from './session.js';
import { messagePage } from './views/message-page.js';

export interface WebAuthOptions extends PrincipalResolverOptions {
  readonly secret: () => string;
  readonly loginOf: (userId: number | null) => string;
}

export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** The form's CSRF field (urlencoded or multipart) or the X-CSRF-Token header of a script's fetch. */
async function submittedCsrf(c: Parameters<MiddlewareHandler<WebEnv>>[0]): Promise<string | null> {
  const header = c.req.header(CSRF_HEADER);
  if (header) return header;
  const type = c.req.header('Content-Type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded') && !type.startsWith('multipart/form-data')) return null;
  const body = await c.req.parseBody({ all: true });
  const value = body[CSRF_FIELD];
  return typeof value === 'string' ? value : null;
}

export function webSession(options: WebAuthOptions): MiddlewareHandler<WebEnv> {
  const resolve = principalResolver(options);
  return async function webSession(c, next) {
    const token = readSession(c);
    const principal = await resolve(token);
    const safe = isSafeMethod(c.req.method);
    if (!principal || !token) {
      if (safe) {
        const next = new URL(c.req.url).pathname;
        return c.redirect(next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`, 303);
      }
      return c.html(messagePage('Not logged in', 'Your session has ended. Log in again to continue.', '/login'), 401);
    }
    const csrf = csrfFor(options.secret(), token);
    if (!safe) {
      if (!sameOrigin(c)) return c.html(messagePage('Refused', 'This request came from another site.', '/'), 403);
      if (!sameSecret(await submittedCsrf(c), csrf)) {
        return c.html(
          messagePage('Refused', 'The form was out of date or not sent by this page. Reload it and try again.', '/'),
          403,
        );
      }
    }
    c.set('principal', principal);
    c.set('session', { principal, login: options.loginOf(principal.userId), csrf });
    await next();
    return undefined;
  };
}
