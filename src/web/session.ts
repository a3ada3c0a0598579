/**
 * The page's session: the same JWT POST /api/login issues, carried in a cookie scripts cannot
 * read (HttpOnly), that the browser never sends on a cross-site request (SameSite=Strict), and
 * only over TLS when the page was reached over HTTPS (Secure). docs/web.md §Session.
 *
 * CSRF: every state-changing form carries a token derived from the session token with HMAC-SHA256
 * keyed by the JWT secret (a synchronizer token without server state: it changes with every
 * login and dies with the secret). The login form, before any session exists, uses a random
 * double-submit cookie. Both are checked in constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';

export const SESSION_COOKIE = 'vigil_session';
export const LOGIN_COOKIE = 'vigil_login';
export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'X-CSRF-Token';

export function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === 'https:';
}

export function csrfFor(secret: string, sessionToken: string): string {
  return createHmac('sha256', secret).update(`csrf:${sessionToken}`).digest('base64url');
}

export function sameSecret(a: string | undefined | null, b: string | undefined | null): boolean {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length === 0) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookieOptions(c: Context, maxAgeS?: number) {
  return {
    httpOnly: true,
    sameSite: 'Strict' as const,
    secure: isHttps(c),
    path: '/',
    ...(maxAgeS !== undefined ? { maxAge: maxAgeS } : {}),
  };
}

export function readSession(c: Context): string | null {
  return getCookie(c, SESSION_COOKIE) ?? null;
}

export function startSession(c: Context, token: string, expiresAt: Date, now: number): void {
  setCookie(c, SESSION_COOKIE, token, cookieOptions(c, Math.max(1, Math.floor((expiresAt.getTime() - now) / 1000))));
}

export function endSession(c: Context): void {
  deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
}

/** The login form's double-submit token: reuses the cookie when present, else sets a new one. */
export function loginCsrf(c: Context): string {
  const existing = getCookie(c, LOGIN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{22,64}$/.test(existing)) return existing;
  const token = randomBytes(18).toString('base64url');
  setCookie(c, LOGIN_COOKIE, token, cookieOptions(c, 3600));
  return token;
}

export function loginCookie(c: Context): string | undefined {
  return getCookie(c, LOGIN_COOKIE);
}

/**
 * A request whose Origin (or, without one, Referer) names another site is refused whatever its
 * token says; browsers send Origin on every POST, so a missing one only comes from non-browsers.
 */
export function sameOrigin(c: Context): boolean {
  const origin = c.req.header('Origin') ?? c.req.header('Referer');
  if (!origin || origin === 'null') return origin === undefined;
  try {
    return new URL(origin).host === new URL(c.req.url).host;
  } catch {
    return false;
  }
}
