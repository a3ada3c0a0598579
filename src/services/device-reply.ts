/**
 * The bodies of the device command replies (management API §Device command reply, §Device
 * configuration reply, §Errors): the API answers them, the page's /device shows them. Pure: a parsed
 * request and the device's outcome in, the contract's JSON object out.
 */
import type { DeviceCommandOutcome, DeviceIdentity } from '../core/device-commands.js';
import type { DeviceRequestFields, ParsedDeviceRequest } from './device-request.js';

/** `partial_uid` and, when provided, `request_id`: the head of every JSON reply. */
export function replyHead(fields: DeviceRequestFields): Record<string, unknown> {
  return fields.requestId !== undefined
    ? { partial_uid: fields.partialUid, request_id: fields.requestId }
    : { partial_uid: fields.partialUid };
}

export function packetsToHex(packets: readonly Buffer[]): string[] {
  return packets.map((p) => p.toString('hex').toUpperCase());
}

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
