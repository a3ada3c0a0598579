/**
 * The management API as a Hono app. No server is started here (src/api/http-listeners.ts binds
 * the sockets); route tests call `await app.request(...)`. One file per route group under routes/.
 * No request can crash the process: anything thrown is logged and answered with the endpoint's
 * 500 shape (`E_3`, plain or JSON), and HTTPExceptions keep their own response (platform notes).
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { describeError } from '../core/errors.js';
import type { ApiDeps, ApiEnv } from './deps.js';
import { authenticate } from './middleware/auth.js';
import { SERVER_FAILURE, errorResponse } from './responses.js';
import { registerDeviceEnrolment } from './routes/device-enrolment.js';
import { registerDevices } from './routes/devices.js';
import { registerEventStream } from './routes/event-stream.js';
import { registerEvents } from './routes/events.js';
import { registerHealth } from './routes/health.js';
import { registerLogin } from './routes/login.js';
import { registerLogout } from './routes/logout.js';
import { registerObjects } from './routes/objects.js';
import { registerOidOverride } from './routes/oid-override.js';
import { registerRestart } from './routes/restart.js';
import { registerSerialPorts } from './routes/serial-ports.js';
import { registerSettings } from './routes/settings.js';
import { registerSystem } from './routes/system.js';
import { registerUserGrants } from './routes/users-grants.js';

export function createApp(deps: ApiDeps): Hono<ApiEnv> {
  const logger = deps.logger.child('api');
  const app = new Hono<ApiEnv>();
  const auth = authenticate({ tokens: deps.tokens, settings: deps.settings, store: deps.store, logger });

  registerHealth(app, deps, auth);
  registerLogin(app, deps);
  registerLogout(app, deps, auth);
  registerSettings(app, deps, auth);
  registerDevices(app, deps, auth);
  if (deps.deviceEnrolment) registerDeviceEnrolment(app, { ...deps, deviceEnrolment: deps.deviceEnrolment }, auth);
  registerRestart(app, deps, auth);
  registerOidOverride(app, deps, auth);
  registerUserGrants(app, deps, auth);
  registerEvents(app, deps, auth);
  registerEventStream(app, deps, auth);
  registerObjects(app, deps, auth);
  registerSerialPorts(app, deps, auth);
  registerSystem(app, deps, auth);

  app.notFound((c) => c.text('Not Found', 404));
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.getResponse();
    logger.error('request failed', { method: c.req.method, path: c.req.path, error: describeError(err) });
    return errorResponse(c, 500, SERVER_FAILURE);
  });
  return app;
}
