/**
 * POST /api/control-device and POST /api/config-device (scope `device_control`; `omit_mpass`
 * is passed on as omitMasterPassword). runDeviceCommand (src/services/devices-service.ts), which
 * the page's /device calls too, applies the rules; the reply bodies are built by
 * src/services/device-reply.ts (the page shows the same); this file maps the outcomes to HTTP.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { CommandKind } from '../../core/device-commands.js';
import { configReply, controlReply, replyHead } from '../../services/device-reply.js';
import { runDeviceCommand } from '../../services/devices-service.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { FORBIDDEN, INVALID_REQUEST, SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

export function registerDevices(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  const service = { devices: deps.devices, logger: deps.logger.child('devices') };

  function handler(kind: CommandKind) {
    return async function deviceCommand(c: Context<ApiEnv>): Promise<Response> {
      const body = await readJson(c);
      let result;
      try {
        result = await runDeviceCommand(service, c.get('principal'), kind, body.ok ? body.value : undefined);
      } catch {
        return c.text(SERVER_FAILURE, 500);
      }
      // control-device answers field problems as 200 JSON codes; config-device as 400 plain text.
      switch (result.kind) {
        case 'forbidden':
          return c.text(FORBIDDEN, 403);
        case 'invalid':
          return c.text(INVALID_REQUEST, 400);
        case 'uid-missing':
          return kind === 'control'
            ? c.json({ ...replyHead(result.fields), error: 'FIELD_UID_IS_MISSING' })
            : c.text('FIELD_UID_IS_MISSING', 400);
        case 'data-invalid':
          return kind === 'control'
            ? c.json({ ...replyHead(result.fields), error: 'INVALID_DATA' })
            : c.text('INVALID_DATA', 400);
        case 'done':
          return c.json(
            kind === 'control'
              ? controlReply(result.request, result.outcome)
              : configReply(result.request, result.outcome),
          );
      }
    };
  }

  addRoute(app, {
    path: '/api/control-device',
    style: 'text',
    auth,
    scope: 'device_control',
    methods: { POST: handler('control') },
  });
  addRoute(app, {
    path: '/api/config-device',
    style: 'text',
    auth,
    scope: 'device_control',
    methods: { POST: handler('config') },
  });
}
