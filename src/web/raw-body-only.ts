/**
 * The System view's uploads (a backup to restore, a system bundle) arrive as the raw body the page's
 * script sends; any other body is refused before the session reads anything, because a multipart
 * form would be parsed whole into memory.
 */
import type { MiddlewareHandler } from 'hono';
import { messagePage } from './views/message-page.js';
import type { WebEnv } from './web-deps.js';

/** Refuses any body but a raw octet stream (the page's script), with `hint` saying what to do instead. */
export function rawBodyOnlyFor(hint: string, back: string): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    if (!(c.req.header('Content-Type') ?? '').startsWith('application/octet-stream'))
      return c.html(messagePage('Needs the page script', hint, back), 415);
    await next();
    return undefined;
  };
}
