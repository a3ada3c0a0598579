/**
 * One path, its allowed methods, and the fixed order of checks every protected endpoint
 * follows (docs/api.md "Order of checks"):
 *   1. authentication  -> 401 (nothing about the endpoint is revealed to an anonymous caller)
 *   2. method          -> 405 with `Allow`
 *   3. scope           -> 403
 *   4. body size       -> 413 (64 KiB; a streamed upload names its own bound)
 *   5. the handler.
 * Hono routes HEAD through GET handlers; the method check reads the real method, so HEAD is
 * only served where a route lists it (never on GET /api/restart-services).
 */
import type { Handler, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiEnv, ErrorStyle } from './deps.js';
import { requireScope } from './middleware/auth.js';
import { PAYLOAD_TOO_LARGE, errorResponse, methodNotAllowed } from './responses.js';

/** Request bodies above this answer 413 (the contract states no limit; docs/api.md "Body limit"). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface RouteSpec {
  readonly path: string;
  readonly style: ErrorStyle;
  /** Omitted for /api/login; /health passes one that runs only when a Bearer token is presented. */
  readonly auth?: MiddlewareHandler<ApiEnv>;
  readonly scope?: string;
  readonly methods: Readonly<Record<string, Handler<ApiEnv>>>;
  /**
   * For a body the handler streams and counts itself (POST /api/system/restore, /api/system/update): a
   * declared Content-Length above it is 413 at once; a chunked body is left to the handler, because
   * hono's bodyLimit reads a chunked body whole into memory before it lets the handler see it.
   */
  readonly maxBodyBytes?: number;
}

function limitBody(maxSize: number): MiddlewareHandler<ApiEnv> {
  return bodyLimit({
    maxSize,
    onError: (c) => errorResponse(c as Parameters<typeof errorResponse>[0], 413, PAYLOAD_TOO_LARGE),
  }) as MiddlewareHandler<ApiEnv>;
}

const limitSmallBody = limitBody(MAX_BODY_BYTES);

function limitDeclaredBody(maxSize: number): MiddlewareHandler<ApiEnv> {
  return async function limitDeclaredBody(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined && !c.req.header('transfer-encoding') && Number(declared) > maxSize)
      return errorResponse(c as Parameters<typeof errorResponse>[0], 413, PAYLOAD_TOO_LARGE);
    await next();
    return undefined;
  };
}

export function addRoute(app: Hono<ApiEnv>, spec: RouteSpec): void {
  const allowed = Object.keys(spec.methods);
  const chain: MiddlewareHandler<ApiEnv>[] = [
    async function errorStyle(c, next) {
      c.set('errorStyle', spec.style);
      await next();
    },
  ];
  if (spec.auth) chain.push(spec.auth);
  chain.push(async function allowMethod(c, next) {
    if (!Object.hasOwn(spec.methods, c.req.method)) return methodNotAllowed(c, allowed);
    await next();
    return undefined;
  });
  if (spec.scope) chain.push(requireScope(spec.scope));
  chain.push(spec.maxBodyBytes === undefined ? limitSmallBody : limitDeclaredBody(spec.maxBodyBytes));
  const dispatch: Handler<ApiEnv> = (c, next) => spec.methods[c.req.method]!(c, next);
  // Registered one by one: Hono runs every handler matching the path in registration order.
  for (const handler of chain) app.all(spec.path, handler);
  app.all(spec.path, dispatch);
}
