/**
 * The contract's error shapes, written by hand (platform notes: no validator echoes input).
 * Plain-text errors are `text/plain; charset=UTF-8`; JSON errors are `{"error": "..."}`
 * (management API §Errors: formats differ per endpoint).
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ApiEnv, ErrorStyle } from './deps.js';

export const NOT_LOGGED_IN = 'NOT_LOGGED_IN';
export const FORBIDDEN = 'FORBIDDEN';
export const METHOD_NOT_ALLOWED = 'Method Not Allowed';
export const PAYLOAD_TOO_LARGE = 'Payload Too Large';
/** Server-side failure code of PUT /api/settings (§Errors), used for every 500 of the API. */
export const SERVER_FAILURE = 'E_3';
export const INVALID_REQUEST = 'Invalid request';

export function styleOf(c: Context<ApiEnv>): ErrorStyle {
  return c.get('errorStyle') ?? 'text';
}

/** An error in the route's style: plain text body, or `{"error": body}`. */
export function errorResponse(
  c: Context<ApiEnv>,
  status: ContentfulStatusCode,
  body: string,
  style = styleOf(c),
): Response {
  return style === 'json' ? c.json({ error: body }, status) : c.text(body, status);
}

export function methodNotAllowed(c: Context<ApiEnv>, allow: readonly string[]): Response {
  c.header('Allow', allow.join(', '));
  return errorResponse(c, 405, METHOD_NOT_ALLOWED);
}

export type JsonBody = { ok: true; value: unknown } | { ok: false };

/** The request body parsed as JSON; malformed or empty bodies are `{ ok: false }`, never a throw. */
export async function readJson(c: Context<ApiEnv>): Promise<JsonBody> {
  const text = await c.req.text();
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
