/**
 * GET /api/serial-ports (scope `settings`; not in the contract, docs/api.md §Serial ports): the serial devices on
 * the box, found without udev (docs/serial.md §Discovery), each with its stable by-id names and the receivers and
 * outputs whose settings name it, so an installer can pick a `port_id` that survives re-plugging.
 * 200 `{"ports":[{"port_id","device","by_id","source","used_by"}]}`.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import type { SerialPortInfo } from '../../core/serial.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { SERVER_FAILURE } from '../responses.js';
import { addRoute } from '../route.js';

export function registerSerialPorts(app: Hono<ApiEnv>, deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>): void {
  if (deps.serialPorts) addSerialPorts(app, deps.serialPorts, deps, auth);
}

function addSerialPorts(
  app: Hono<ApiEnv>,
  discover: () => Promise<SerialPortInfo[]>,
  deps: ApiDeps,
  auth: MiddlewareHandler<ApiEnv>,
): void {
  const logger = deps.logger.child('serial-ports');

  async function list(c: Context<ApiEnv>): Promise<Response> {
    try {
      return c.json({ ports: await discover() });
    } catch (err) {
      logger.error('serial port discovery failed', { error: describeError(err) });
      return c.text(SERVER_FAILURE, 500);
    }
  }

  addRoute(app, {
    path: '/api/serial-ports',
    style: 'text',
    auth,
    scope: 'settings',
    methods: { GET: list, HEAD: list },
  });
}
