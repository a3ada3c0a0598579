/**
 * POST /api/control-device and POST /api/config-device (scope `device_control`; `omit_mpass`
 * is passed on as omitMasterPassword). runDeviceCommand (src/services/devices-service.ts), which
 * the page's /device calls too, applies the rules; this file only maps its outcomes to the
 * contract's two different reply shapes (management API §Errors).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { CommandKind, DeviceCommandOutcome, DeviceIdentity } from '../../core/device-commands.js';
import { runDeviceCommand } from '../../services/devices-service.js';
import type { ApiDeps, ApiEnv } from '../deps.js';
import { packetsToHex, replyHead, type ParsedDeviceRequest } from '../device-request.js';
import { FORBIDDEN, INVALID_REQUEST, SERVER_FAILURE, readJson } from '../responses.js';
import { addRoute } from '../route.js';

const DEFAULT_NO_RESPONSE_MESSAGE = 'The device did not reply within 10 seconds';

function identity(device: DeviceIdentity | undefined): { uid?: string; hw_id?: string; oid?: string } {
  if (!device) return {};
  return {
    uid: device.uid,
    ...(device.hwId !== undefined ? { hw_id: device.hwId } : {}),
    ...(device.oid !== undefined ? { oid: device.oid } : {}),
  };
}

/** Control reply, field order of §Device command reply: partial_uid, request_id, uid, data, error, hw_id, oid. */
export function controlReply(request: ParsedDeviceRequest, outcome: DeviceCommandOutcome): Record<string, unknown> {
  // The contract has no code for an ambiguous partial UID: "no device with that partial UID"
  // (one device) is the nearest, and no device identity is disclosed (docs/api.md).
  const ambiguous = !outcome.ok && outcome.error === 'AMBIGUOUS_UID';
  const { uid, hw_id, oid } = ambiguous ? {} : identity(outcome.device);
  const body = replyHead(request);
  if (uid !== undefined) body.uid = uid;
  if (outcome.ok) {
    if (request.responseRequired && outcome.packets.length > 0) body.data = packetsToHex(outcome.packets);
  } else if (ambiguous) {
    body.error = 'NO_OBJECT';
  } else {
    // CONFIG_REJECTED is a config-device notion; for a control command it is "data malformed".
    body.error = outcome.error === 'CONFIG_REJECTED' ? 'BAD_DATA' : outcome.error;
  }
  if (hw_id !== undefined) body.hw_id = hw_id;
  if (oid !== undefined) body.oid = oid;
  return body;
}

/** Config reply (§Device configuration reply and §Errors config-device); always status 200. */
export function configReply(request: ParsedDeviceRequest, outcome: DeviceCommandOutcome): Record<string, unknown> {
  const head = replyHead(request);
  if (outcome.ok) {
    if (!request.responseRequired) return { ...head, status: 'configuration_sent' };
    return { ...head, ...identity(outcome.device), data: packetsToHex(outcome.packets) };
  }
  switch (outcome.error) {
    case 'NO_RESPONSE':
      return { ...head, error: 'NO_RESPONSE', message: outcome.message ?? DEFAULT_NO_RESPONSE_MESSAGE };
    case 'NO_OBJECT':
    case 'AMBIGUOUS_UID':
    case 'NO_CONNECTION':
      return { ...head, error: 'Device not connected' };
    case 'CONFIG_REJECTED':
    case 'BAD_DATA':
      return { ...head, error: 'Invalid configuration format' };
    case 'MPASS_IS_INCORRECT':
    case 'INVALID_PACKET_NUMBER':
    case 'INVALID_PACKET_COUNT':
      return { ...head, error: outcome.error };
  }
}

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
