/**
 * The management API, `/metrics` and the technician's page on one Hono app, behind the HTTP and HTTPS
 * listeners (docs/api.md, docs/metrics.md, docs/web.md). Built here, started by the Gateway.
 */
import { readFileSync } from 'node:fs';
import { parse as parseCookies } from 'hono/utils/cookie';
import { createApp } from '../api/app.js';
import { bearerToken } from '../api/middleware/auth.js';
import { principalResolver } from '../services/principal-resolver.js';
import { HttpListeners } from '../api/http-listeners.js';
import { plainHttpGate } from '../api/plain-http-gate.js';
import { registerMetrics } from '../api/routes/metrics.js';
import { TokenService } from '../auth/tokens.js';
import type { Admission } from '../core/admission/admission.js';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { ServiceGroup } from '../core/service-group.js';
import { RegistryCommandPort, type LiveLinks } from '../devices/registry-command-port.js';
import type { GatewayMetrics } from '../metrics/gateway-metrics.js';
import type { Settings } from '../settings/schema.js';
import { configuredSerialPorts } from '../settings/serial-usage.js';
import type { SettingsService } from '../settings/settings-service.js';
import { INSTANCE_ID_KEY } from '../store/meta-repo.js';
import type { Store } from '../store/store.js';
import type { SupervisionParts } from '../tracker/supervision-services.js';
import type { UpdatePort } from '../services/update-service.js';
import { WEB_UPLOAD_PATHS, registerWeb } from '../web/web-app.js';
import { SESSION_COOKIE } from '../web/session.js';
import type { EventStoredFeed } from './event-feeds.js';
import { discoverSerialPorts } from './hardware.js';

/** What every part of the gateway shares for one run. */
export interface GatewayRun {
  readonly version: string;
  readonly startedAt: number;
  readonly dataDir: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly health: HealthRegistry;
}

/**
 * The ingest side the HTTP side reaches: journaling and the login throttle, live device links, figures, the
 * feed, and the admission budget every API socket takes its share of (docs/security.md "Admission").
 */
export interface HttpIngestParts {
  readonly supervision: Pick<SupervisionParts, 'raise' | 'loginThrottle'>;
  readonly admission: Admission;
  readonly links: LiveLinks;
  readonly metrics: GatewayMetrics;
  readonly onEventStored: EventStoredFeed;
}

/** The run's own choices (GatewayOptions): overrides of api.bind_address / api_http_port / api_port (0: off). */
export interface HttpRunOptions {
  readonly host?: string | undefined;
  readonly httpPort?: number | undefined;
  readonly httpsPort?: number | undefined;
  readonly isLocalClient?: ((address: string | undefined) => boolean) | undefined;
  readonly requestStop?: (() => void) | undefined;
}

export interface HttpDeps {
  readonly run: GatewayRun;
  readonly settings: SettingsService;
  readonly store: Store;
  readonly services: ServiceGroup;
  readonly ingest: HttpIngestParts;
  readonly listen: HttpRunOptions;
  /** A/B system updates (docs/updates.md). */
  readonly update: UpdatePort;
}

export function buildHttp(deps: HttpDeps): HttpListeners {
  const { settings, store, ingest, listen } = deps;
  const { logger, clock } = deps.run;
  const apiDeps = {
    version: deps.run.version,
    startedAt: deps.run.startedAt,
    clock,
    logger: logger.child('api'),
    health: deps.run.health,
    settings,
    store,
    tokens: new TokenService({ secret: () => settings.current().api.api_jwt_secret, clock }),
    devices: new RegistryCommandPort({
      objects: store.objects,
      links: ingest.links,
      logger: logger.child('devices'),
      overrides: store.overrides,
    }),
    deviceEnrolment: { store, clock, logger: logger.child('devices') },
    services: deps.services,
    throttle: ingest.supervision.loginThrottle,
    serialPorts: () => discoverSerialPorts(configuredSerialPorts(settings.current())),
    // The box itself: /api/system* and the System view (docs/backup.md).
    system: {
      dataDir: deps.run.dataDir,
      instanceId: () => store.meta.get(INSTANCE_ID_KEY),
      ...(listen.requestStop ? { requestStop: listen.requestStop } : {}),
      update: deps.update,
    },
    onEventStored: ingest.onEventStored,
  };
  const app = createApp(apiDeps);
  registerMetrics(app, apiDeps, ingest.metrics);
  // The technician's page on the same listeners (docs/web.md); its actions are journaled.
  registerWeb(app, {
    ...apiDeps,
    settingsView: settings,
    journalAction: (login, action) =>
      void ingest.supervision.raise('technician_action', { detail: `${login}: ${action}` }),
  });
  const current = settings.current();
  // A request carries a login when its bearer token or session cookie resolves to a principal (the rules of every route).
  const resolve = principalResolver({ tokens: apiDeps.tokens, settings, store, logger: apiDeps.logger });
  const loggedIn = async (request: Request): Promise<boolean> => {
    const cookie = request.headers.get('cookie');
    const token =
      bearerToken(request.headers.get('authorization') ?? undefined) ??
      (cookie ? (parseCookies(cookie, SESSION_COOKIE)[SESSION_COOKIE] ?? null) : null);
    return token !== null && (await resolve(token)) !== null;
  };
  const listeners: HttpListeners = new HttpListeners(
    app.fetch,
    {
      host: listen.host ?? current.api.bind_address,
      httpPort: listen.httpPort ?? current.api.api_http_port,
      httpsPort: listen.httpsPort ?? current.api.api_port,
      tls: readTls(current, logger),
      // Plain HTTP for loopback clients or by explicit setting; others go to HTTPS (docs/security.md "Transport").
      plainHttp: (fetch) =>
        plainHttpGate(fetch, {
          allowPlainHttp: () => settings.current().api.allow_plain_http,
          httpsPort: (): number | null => listeners.ports().https ?? null,
          ...(listen.isLocalClient ? { isLocal: listen.isLocalClient } : {}),
        }),
      admission: {
        admission: ingest.admission,
        loggedIn,
        uploads: [...WEB_UPLOAD_PATHS, '/api/system/restore', '/api/system/update'],
      },
    },
    deps.run.health,
    logger.child('api'),
  );
  return listeners;
}

function readTls(settings: Settings, logger: Logger): { key: string; cert: string } | null {
  const { private_key: keyPath, public_key: certPath } = settings.api;
  if (!keyPath || !certPath) return null;
  try {
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } catch (err) {
    logger.error('cannot read TLS key or certificate', { error: describeError(err) });
    return null;
  }
}
