/**
 * The technician's page (docs/web.md): server-rendered views on the API's own listeners, mounted
 * on the API's Hono app. Every view calls the services the API calls, with the caller's scopes and
 * visible receivers, so the page never shows what the API would refuse the same user.
 */
import type { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { Hono as HonoApp } from 'hono';
import { describeError } from '../core/errors.js';
import type { ApiEnv } from '../api/deps.js';
import { MAX_BODY_BYTES } from '../api/route.js';
import { registerAssets } from './assets.js';
import { securityHeaders } from './headers.js';
import { registerLogin } from './routes/login.js';
import { registerStatus } from './routes/status.js';
import { registerEvents } from './routes/events.js';
import { registerObjects } from './routes/objects.js';
import { registerDevice } from './routes/device.js';
import { registerDeviceEnrolment } from './routes/device-enrolment.js';
import { registerOverrides } from './routes/overrides.js';
import { registerRestart } from './routes/restart.js';
import { registerUsers } from './routes/users.js';
import { registerSettings } from './routes/settings.js';
import { registerSystem } from './routes/system.js';
import { messagePage } from './views/message-page.js';
import { webSession } from './web-auth.js';
import type { WebDeps, WebEnv } from './web-deps.js';

/** Every path the page serves (the API keeps /api/*, /health and /metrics). */
export const WEB_PATHS = [
  '/',
  '/login',
  '/logout',
  '/assets/*',
  '/favicon.ico',
  '/events',
  '/events/*',
  '/objects',
  '/device',
  '/device/*',
  '/overrides',
  '/settings',
  '/settings/*',
  '/users',
  '/users/*',
  '/restart',
  '/system',
  '/system/backup',
  '/system/restart',
  '/system/reboot',
  '/system/update/acknowledge',
] as const;

/**
 * Streamed uploads: the security headers only. Nothing may read their body before the session and its
 * CSRF token are checked (a body limit here would: hono's bodyLimit reads a chunked body whole before
 * the next handler runs); their services count the stream against their own bounds (backup-service.ts,
 * update-service.ts).
 */
export const WEB_UPLOAD_PATHS = ['/system/restore', '/system/update'] as const;

export function registerWeb(app: Hono<ApiEnv>, deps: WebDeps): void {
  const logger = deps.logger.child('web');
  const web = new HonoApp<WebEnv>();
  // Scoped to the page's own paths: the API's responses keep exactly their contract headers.
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.text('Payload Too Large', 413) });
  for (const path of WEB_PATHS) web.use(path, securityHeaders(), limit);
  for (const path of WEB_UPLOAD_PATHS) web.use(path, securityHeaders());
  const session = webSession({
    tokens: deps.tokens,
    settings: deps.settings,
    store: deps.store,
    logger,
    secret: () => deps.settings.current().api.api_jwt_secret,
    loginOf: (userId) => deps.settings.current().users.find((u) => u.id === userId)?.login ?? 'installer',
  });
  registerAssets(web);
  registerLogin(web, deps, session);
  registerStatus(web, deps, session);
  registerEvents(web, deps, session);
  registerObjects(web, deps, session);
  registerDevice(web, deps, session);
  registerDeviceEnrolment(web, deps, session);
  registerOverrides(web, deps, session);
  registerRestart(web, deps, session);
  registerUsers(web, deps, session);
  registerSettings(web, deps, session);
  registerSystem(web, deps, session);
  web.onError((err, c) => {
    logger.error('page failed', { method: c.req.method, path: c.req.path, error: describeError(err) });
    return c.html(
      messagePage('Server failure', 'The gateway could not complete this request (E_3). The log has the details.', '/'),
      500,
    );
  });
  app.route('/', web as unknown as Hono<ApiEnv>);
}
