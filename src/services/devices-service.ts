/**
 * Device commands (POST /api/control-device, /api/config-device and the page's /device): the one
 * path from a caller to the DeviceCommandPort. Order of rules (docs/api.md "Device commands"):
 *   1. scope `device_control`                                     -> forbidden
 *   2. the request (parseDeviceRequest)                           -> invalid | uid-missing | data-invalid
 *   3. the port, told the caller's visible receivers (a device on another receiver is NO_OBJECT,
 *      exactly like one that does not exist) and whether it holds `omit_mpass`  -> done
 * The reply bodies are built by device-reply.ts (the contract's two shapes); the edges send or show them.
 */
import type {
  CommandKind,
  DeviceCommandOutcome,
  DeviceCommandPort,
  DeviceCommandRequest,
} from '../core/device-commands.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { parseDeviceRequest, type DeviceRequestFields, type ParsedDeviceRequest } from './device-request.js';
import { FORBIDDEN, hasScope, type Forbidden, type Principal } from './principal.js';

export const DEVICE_SCOPE = 'device_control';
export const OMIT_MPASS_SCOPE = 'omit_mpass';

export interface DevicesDeps {
  readonly devices: DeviceCommandPort;
  readonly logger: Logger;
}

export type DeviceCommandResult =
  | Forbidden
  | { readonly kind: 'invalid' }
  | { readonly kind: 'uid-missing'; readonly fields: DeviceRequestFields }
  | { readonly kind: 'data-invalid'; readonly fields: DeviceRequestFields }
  | { readonly kind: 'done'; readonly request: ParsedDeviceRequest; readonly outcome: DeviceCommandOutcome };

export function mayCommandDevices(principal: Principal): boolean {
  return hasScope(principal, DEVICE_SCOPE);
}

/** The port's request for a parsed body and caller: scopes and visible receivers apply. */
export function commandRequest(
  kind: CommandKind,
  request: ParsedDeviceRequest,
  principal: Principal,
  onPacket?: (packet: Buffer, number: number) => void,
): DeviceCommandRequest {
  return {
    kind,
    partialUid: request.partialUid.toUpperCase(),
    ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
    data: request.data,
    ...(request.cloudAccessCode !== undefined ? { cloudAccessCode: request.cloudAccessCode } : {}),
    responseRequired: request.responseRequired,
    omitMasterPassword: hasScope(principal, OMIT_MPASS_SCOPE),
    visibleReceivers: principal.visibleReceivers,
    ...(onPacket ? { onPacket } : {}),
  };
}

/** Throws only when the port fails (logged here; the edges answer it as E_3). */
export async function runDeviceCommand(
  deps: DevicesDeps,
  principal: Principal,
  kind: CommandKind,
  body: unknown,
  onPacket?: (packet: Buffer, number: number) => void,
): Promise<DeviceCommandResult> {
  if (!mayCommandDevices(principal)) return FORBIDDEN;
  const verdict = parseDeviceRequest(body);
  if (verdict.kind !== 'ok') return verdict;
  const request = verdict.request;
  try {
    const outcome = await deps.devices.execute(commandRequest(kind, request, principal, onPacket));
    deps.logger.info('device command', {
      kind,
      by: principal.subject,
      partial_uid: request.partialUid,
      result: outcome.ok ? 'ok' : outcome.error,
    });
    return { kind: 'done', request, outcome };
  } catch (err) {
    deps.logger.error('device command failed', { kind, partial_uid: request.partialUid, error: describeError(err) });
    throw err;
  }
}
