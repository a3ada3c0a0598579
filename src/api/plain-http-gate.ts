/**
 * What the plain-HTTP listener (`api.api_http_port`) serves (docs/security.md "Transport"). Over
 * plain HTTP a password, a session cookie and a bearer token cross the LAN in clear, so by default
 * only loopback clients (the box itself: README's quick start, `vigil status`, a reverse proxy on
 * the box) are served there. Any other client:
 *   - GET/HEAD of a page path -> 307 to the same path on the HTTPS listener (temporary: turning
 *     `api.allow_plain_http` on later must not be undone by a browser's cached permanent redirect),
 *     at the address the client reached the box at, or the box's own host name when the request
 *     named it: never a `Host` header's other name (a redirect to a host the attacker chose);
 *   - anything else (the API, /health, /metrics, form posts), and page GETs while no HTTPS listener
 *     runs -> 403 `HTTPS_REQUIRED` (text/plain, like the contract's other error words), before
 *     any route, token check or body read.
 * `api.allow_plain_http: true` serves everyone over plain HTTP as before (a trusted, isolated LAN).
 */
import { hostname } from 'node:os';
import { isLoopback } from '../core/loopback.js';

export { isLoopback };

type Env = { incoming?: { socket?: { remoteAddress?: string; localAddress?: string } } };
export type FetchHandler = (request: Request, env: Record<string, unknown>) => Response | Promise<Response>;

export const HTTPS_REQUIRED = 'HTTPS_REQUIRED';
/** Paths of the API; everything else on the listener is the technician's page. */
const API_PATHS = /^\/(api(\/|$)|health$|metrics$)/;

export interface PlainHttpGateOptions {
  /** `api.allow_plain_http`, read on every request (a settings save applies at once). */
  readonly allowPlainHttp: () => boolean;
  /** The HTTPS listener's bound port; null while none runs. */
  readonly httpsPort: () => number | null;
  /** Which peers are the box itself; isLoopback unless a test names a loopback alias as "the LAN". */
  readonly isLocal?: (address: string | undefined) => boolean;
  /** The box's own names a redirect may keep (default: the host name, and it under `.local`). */
  readonly names?: () => readonly string[];
}

/** The box's names as a browser may type them. */
function ownNames(): string[] {
  const name = hostname().toLowerCase();
  return [name, `${name}.local`];
}

/** A socket's local address as a URL host: IPv4-mapped as IPv4, IPv6 in brackets. */
function urlHost(address: string): string {
  const bare = address.toLowerCase().startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return bare.includes(':') ? `[${bare}]` : bare;
}

export function plainHttpGate(fetch: FetchHandler, options: PlainHttpGateOptions): FetchHandler {
  const isLocal = options.isLocal ?? isLoopback;
  const names = options.names ?? ownNames;
  return function plainHttp(request, env) {
    const socket = (env as Env).incoming?.socket;
    if (options.allowPlainHttp() || isLocal(socket?.remoteAddress)) return fetch(request, env);
    const url = new URL(request.url);
    const port = options.httpsPort();
    const pageRead = (request.method === 'GET' || request.method === 'HEAD') && !API_PATHS.test(url.pathname);
    const local = socket?.localAddress;
    if (pageRead && port !== null && local) {
      // The Host header is the client's to write: only the box's own names survive it.
      if (!names().includes(url.hostname.toLowerCase())) url.hostname = urlHost(local);
      url.protocol = 'https:';
      url.port = String(port);
      return new Response(null, { status: 307, headers: { Location: url.toString(), 'Cache-Control': 'no-store' } });
    }
    return new Response(HTTPS_REQUIRED, {
      status: 403,
      headers: { 'Content-Type': 'text/plain; charset=UTF-8', 'Cache-Control': 'no-store' },
    });
  };
}
