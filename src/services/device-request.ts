/**
 * Pure parsing of the device command request shared by control-device and config-device
 * (management API §Device command request). Values in, a verdict out; no HTTP here.
 * Order of checks (docs/api.md "Device commands"):
 *   1. body a JSON object, every known field of its type (null = absent)   else `invalid`
 *   2. partial_uid absent or ""                                             -> `uid-missing`
 *   3. partial_uid not 1..32 hex digits                                     -> `invalid`
 *   4. data absent, "", not hex, or an odd number of digits                 -> `data-invalid`
 * Unknown fields are ignored: the contract lists the fields a caller sends, not a closed set.
 */
import { isHex, isPlainObject } from './json-values.js';

/** The longest device-link UID (docs/device-link.md): a partial UID cannot be longer. */
export const MAX_PARTIAL_UID_DIGITS = 32;

export interface DeviceRequestFields {
  /** As given by the caller, echoed back unchanged. */
  readonly partialUid: string;
  readonly requestId?: string;
}

export interface ParsedDeviceRequest extends DeviceRequestFields {
  readonly data: Buffer;
  readonly cloudAccessCode?: string;
  readonly responseRequired: boolean;
}

export type DeviceRequestVerdict =
  | { readonly kind: 'invalid' }
  | { readonly kind: 'uid-missing'; readonly fields: DeviceRequestFields }
  | { readonly kind: 'data-invalid'; readonly fields: DeviceRequestFields }
  | { readonly kind: 'ok'; readonly request: ParsedDeviceRequest };

function optionalString(value: unknown): string | undefined | false {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : false;
}

export function parseDeviceRequest(body: unknown): DeviceRequestVerdict {
  if (!isPlainObject(body)) return { kind: 'invalid' };
  const partialUid = optionalString(body.partial_uid);
  const requestId = optionalString(body.request_id);
  const data = optionalString(body.data);
  const code = optionalString(body.cloud_access_code);
  const responseRequired = body.response_required ?? false;
  if (partialUid === false || requestId === false || data === false || code === false) return { kind: 'invalid' };
  if (typeof responseRequired !== 'boolean') return { kind: 'invalid' };

  const fields: DeviceRequestFields = {
    partialUid: partialUid ?? '',
    ...(requestId !== undefined ? { requestId } : {}),
  };
  if (!partialUid) return { kind: 'uid-missing', fields };
  if (partialUid.length > MAX_PARTIAL_UID_DIGITS || !isHex(partialUid)) return { kind: 'invalid' };
  // §Device command request: hex characters, either case, no spaces or separators; whole bytes only.
  if (!data || data.length % 2 !== 0 || !isHex(data)) return { kind: 'data-invalid', fields };
  return {
    kind: 'ok',
    request: {
      ...fields,
      data: Buffer.from(data, 'hex'),
      ...(code ? { cloudAccessCode: code } : {}),
      responseRequired,
    },
  };
}
