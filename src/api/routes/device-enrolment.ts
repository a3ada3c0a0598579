/**
 * POST /api/device-enrolment (scope `device_control`; management API: "not shown", decision in
 * docs/api.md): forgets a device's link key and opens enrolment for its UID, so a replacement
 * device can enrol (docs/device-link.md §4.4). The rules live in resetDeviceKey; this file
 * only translates HTTP, in the style of POST /api/control-device: 400 `Invalid request` for a body
 * that is not one of the two shapes, 200 JSON otherwise, with `error` when nothing was reset.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import {
  resetDeviceKey,
  type DeviceEnrolmentDeps,
  type EnrolmentRequest,
} from '../../services/device-enrolment-service.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { INVALID_REQUEST, SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

const HEX_RE = /^[0-9A-Fa-f]+$/;

/** `{"partial_uid": hex}` or `{"uid": 6..32 hex}`; anything else is null. */
export function parseEnrolmentRequest(body: unknown): EnrolmentRequest | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { partial_uid: partial, uid } = body as Record<string, unknown>;
  if (
    typeof partial === 'string' &&
    partial !== '' &&
    partial.length <= 32 &&
    HEX_RE.test(partial) &&
    uid === undefined
  )
    return { partialUid: partial };
  if (typeof uid === 'string' && uid.length >= 6 && uid.length <= 32 && HEX_RE.test(uid) && partial === undefined)
    return { uid };
  return null;
}

export function registerDeviceEnrolment(
  app: Hono<ApiEnv>,
  deps: ApiDeps & { deviceEnrolment: DeviceEnrolmentDeps },
  auth: MiddlewareHandler<ApiEnv>,
): void {
  const logger = deps.logger.child('device-enrolment');
  async function reset(c: Context<ApiEnv>): Promise<Response> {
    const body = await readJson(c);
    const request = parseEnrolmentRequest(body.ok ? body.value : undefined);
    if (!request) return c.text(INVALID_REQUEST, 400);
    try {
      const result = await resetDeviceKey(deps.deviceEnrolment, c.get('principal'), request);
      switch (result.kind) {
        case 'forbidden':
          return c.text('FORBIDDEN', 403);
        case 'no-object':
          // As the device commands: an ambiguous partial UID reveals nothing of the devices it hit.
          return c.json({ error: 'NO_OBJECT' });
        case 'done':
          return c.json({ uid: result.uid, enrolment_open_until: new Date(result.enrolUntil).toISOString() });
      }
    } catch (err) {
      logger.error('device key reset failed', { error: describeError(err) });
      return c.text(SERVER_FAILURE, 500);
    }
  }
  addRoute(app, {
    path: '/api/device-enrolment',
    style: 'text',
    auth,
    scope: 'device_control',
    methods: { POST: reset },
  });
}
