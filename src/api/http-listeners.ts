/**
 * The HTTP and HTTPS listeners of the management API. The Hono app is built elsewhere
 * (createApp); this file only binds sockets, so route tests never open one.
 *
 * Every socket is admitted through the API's door of the admission component before anything is
 * read (docs/security.md "Admission"): sockets per source and at the door, and a slot in the
 * descriptor budget every door shares, where strangers are shed first. A socket stays a stranger
 * until a request on it carries a valid login; its source is then known, and its later sockets are
 * served first. A stranger that completes no request within `request_headers_timeout_s` (a TLS
 * handshake within `tls_handshake_timeout_s`) is closed and counted: a slow client holds a socket
 * for seconds, not for Node's two minutes.
 */
import { createAdaptorServer } from '@hono/node-server';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server, Socket } from 'node:net';
import type { Admission } from '../core/admission/admission.js';
import type { SocketTicket } from '../core/admission/doors.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { sourceKey } from '../core/source-key.js';

type FetchHandler = (request: Request, env: Record<string, unknown>) => Response | Promise<Response>;

export interface ListenerConfig {
  host: string;
  /** 0 disables the listener for this run. */
  httpPort: number;
  httpsPort: number;
  /** PEM text, read by the caller from api.private_key / api.public_key. */
  tls: { key: string; cert: string } | null;
  /**
   * Wraps the handler of the plain-HTTP listener only (plain-http-gate.ts: loopback or
   * `api.allow_plain_http`, else a redirect to HTTPS or 403); the HTTPS listener serves `fetch`.
   */
  plainHttp?: (fetch: FetchHandler) => FetchHandler;
  /** The gateway's admission component and how to tell a logged-in request; absent: no admission (route tests). */
  admission?: ListenerAdmission;
}

export interface ListenerAdmission {
  readonly admission: Admission;
  /** Whether the request carries a valid login (bearer token or session cookie); asked once per stranger socket. */
  readonly loggedIn: (request: Request) => Promise<boolean>;
  /** Paths whose body is an upload (the restore and update paths of the API and the page). */
  readonly uploads: readonly string[];
}

/** What the listeners keep per admitted socket. */
interface Admitted {
  readonly ticket: SocketTicket;
  /** Closes the socket when no request came in time; cleared by the first request. */
  timer: NodeJS.Timeout | null;
}

type Env = { incoming?: { socket?: Socket & { _parent?: Socket } } };

/** How often Node checks the headers timeout of every connection (its default of 30 s lets a slow client sit 40 s). */
const CONNECTIONS_CHECK_MS = 1000;

export class HttpListeners implements Service {
  readonly name = 'api';
  private readonly fetch: FetchHandler;
  private readonly config: ListenerConfig;
  private readonly health: HealthRegistry;
  private readonly logger: Logger;
  private servers: Server[] = [];
  /** Admitted sockets, by their TCP socket (an HTTPS request's TLSSocket names it as `_parent`). */
  private readonly admitted = new WeakMap<Socket, Admitted>();

  constructor(fetch: FetchHandler, config: ListenerConfig, health: HealthRegistry, logger: Logger) {
    this.fetch = fetch;
    this.config = config;
    this.health = health;
    this.logger = logger;
  }

  /** Bound ports, for tests and the start-up log (a configured port of 0 is absent). */
  ports(): { http?: number; https?: number } {
    const result: { http?: number; https?: number } = {};
    for (const server of this.servers) {
      const address = server.address() as AddressInfo | null;
      if (!address) continue;
      if ('setSecureContext' in server) result.https = address.port;
      else result.http = address.port;
    }
    return result;
  }

  async start(): Promise<void> {
    const { host, httpPort, httpsPort, tls } = this.config;
    // HTTPS first: the plain listener's redirects name its bound port.
    if (httpsPort > 0) {
      if (!tls) {
        this.health.report(
          'api:https',
          'api',
          'failed',
          'no TLS key/certificate configured (api.private_key, api.public_key)',
        );
      } else {
        const server = createAdaptorServer({
          fetch: this.withAdmission(this.fetch),
          createServer: createHttpsServer,
          serverOptions: { key: tls.key, cert: tls.cert, ...this.timeouts(), handshakeTimeout: this.handshakeMs() },
        }) as Server;
        this.guard(server, 'https');
        await this.listen('api:https', server, httpsPort, host);
      }
    }
    if (httpPort > 0) {
      const fetch = this.config.plainHttp ? this.config.plainHttp(this.fetch) : this.fetch;
      const server = createAdaptorServer({
        fetch: this.withAdmission(fetch),
        serverOptions: this.timeouts(),
      }) as Server;
      this.guard(server, 'http');
      await this.listen('api:http', server, httpPort, host);
    }
  }

  private timeouts(): { headersTimeout?: number; connectionsCheckingInterval?: number } {
    const admission = this.config.admission?.admission;
    if (!admission) return {};
    return {
      headersTimeout: admission.limits().request_headers_timeout_s * 1000,
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    };
  }

  private handshakeMs(): number {
    return (this.config.admission?.admission.limits().tls_handshake_timeout_s ?? 120) * 1000;
  }

  /** Admits every socket of `server` before its first byte is read (the server's own listener only set up the parser). */
  private guard(server: Server, label: 'http' | 'https'): void {
    const gate = this.config.admission;
    if (!gate) return;
    const { admission } = gate;
    const served = label === 'https' ? admission.https : admission.http;
    server.once('listening', () => served.serving(true));
    server.once('close', () => served.serving(false));
    server.on('connection', (socket: Socket) => {
      const ticket = served.admit(sourceKey(socket.remoteAddress ?? ''), () => socket.destroy());
      if (typeof ticket === 'string') {
        socket.destroy();
        return;
      }
      const entry: Admitted = { ticket, timer: null };
      entry.timer = setTimeout(() => {
        entry.timer = null;
        admission.refused(label, 'timeout');
        socket.destroy();
      }, admission.limits().request_headers_timeout_s * 1000);
      entry.timer.unref();
      this.admitted.set(socket, entry);
      socket.once('close', () => {
        if (entry.timer) clearTimeout(entry.timer);
        ticket.release();
      });
    });
    // A handshake that never completed, or failed: the socket is gone; counted when it ran out of time.
    server.on('tlsClientError', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT') admission.refused(label, 'timeout');
    });
  }

  /** The handler with the socket's admission: its first request stops the clock; a login trusts it. */
  private withAdmission(fetch: FetchHandler): FetchHandler {
    const gate = this.config.admission;
    if (!gate) return fetch;
    return async (request, env) => {
      const socket = (env as Env).incoming?.socket;
      const entry = socket ? this.admitted.get(socket._parent ?? socket) : undefined;
      if (entry) {
        if (entry.timer) {
          clearTimeout(entry.timer);
          entry.timer = null;
        }
        const { ticket } = entry;
        if (ticket.stranger) {
          ticket.touch();
          if (await gate.loggedIn(request)) {
            ticket.trust();
            gate.admission.users.add(ticket.source);
          }
        }
      }
      const response = await fetch(request, env);
      if (response.status < 400 || !gate.uploads.includes(new URL(request.url).pathname)) return response;
      // A refused upload: its body was not read, and it will not be: the socket closes after the answer.
      if (response.status === 401) gate.admission.refused('upload', 'unauthenticated');
      const headers = new Headers(response.headers);
      headers.set('Connection', 'close');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    };
  }

  private listen(name: string, server: Server, port: number, host: string): Promise<void> {
    this.health.report(name, 'api', 'starting');
    return new Promise((resolve) => {
      const onError = (err: Error): void => {
        this.health.report(name, 'api', 'failed', describeError(err));
        this.logger.error('listener failed', { listener: name, port, error: describeError(err) });
        resolve();
      };
      server.once('error', onError);
      server.listen(port, host, () => {
        server.off('error', onError);
        server.on('error', (err) => this.logger.error('listener error', { listener: name, error: describeError(err) }));
        this.servers.push(server);
        this.health.report(name, 'api', 'ok', `listening on ${host}:${(server.address() as AddressInfo).port}`);
        this.logger.info('listening', { listener: name, host, port: (server.address() as AddressInfo).port });
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    const servers = this.servers;
    this.servers = [];
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            // Keep-alive connections would hold close() open; end them.
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          }),
      ),
    );
    this.health.remove('api:http');
    this.health.remove('api:https');
  }
}
