/**
 * The HTTP and HTTPS listeners of the management API. The Hono app is built elsewhere
 * (createApp); this file only binds sockets, so route tests never open one.
 */
import { createAdaptorServer } from '@hono/node-server';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';

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
}

export class HttpListeners implements Service {
  readonly name = 'api';
  private readonly fetch: FetchHandler;
  private readonly config: ListenerConfig;
  private readonly health: HealthRegistry;
  private readonly logger: Logger;
  private servers: Server[] = [];

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
          fetch: this.fetch,
          createServer: createHttpsServer,
          serverOptions: { key: tls.key, cert: tls.cert },
        }) as Server;
        await this.listen('api:https', server, httpsPort, host);
      }
    }
    if (httpPort > 0) {
      const fetch = this.config.plainHttp ? this.config.plainHttp(this.fetch) : this.fetch;
      await this.listen('api:http', createAdaptorServer({ fetch }) as Server, httpPort, host);
    }
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
