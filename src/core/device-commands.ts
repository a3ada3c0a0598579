/**
 * The seam between the management API and whatever carries commands to devices (the device
 * link over a device's own TCP connection). The API edge maps these outcomes to the contract's
 * HTTP shapes; nothing here knows about HTTP.
 */
export type CommandKind = 'control' | 'config';

export interface DeviceCommandRequest {
  readonly kind: CommandKind;
  /** Upper-case hex, validated by the caller. */
  readonly partialUid: string;
  readonly requestId?: string;
  /** The command or configuration bytes, already decoded from hex. */
  readonly data: Buffer;
  readonly cloudAccessCode?: string;
  readonly responseRequired: boolean;
  /** The caller holds the `omit_mpass` scope: the device must not ask for the master password. */
  readonly omitMasterPassword: boolean;
  /** Receiver ids the caller may see; null means all. Devices on other receivers are NO_OBJECT. */
  readonly visibleReceivers: readonly number[] | null;
  /**
   * Told of each reply packet as it arrives, in order (number 1..n), before the outcome settles;
   * the technician's page shows packets live. Only with responseRequired. Must not throw.
   */
  readonly onPacket?: (packet: Buffer, number: number) => void;
}

export interface DeviceIdentity {
  readonly uid: string;
  readonly hwId?: string;
  readonly oid?: string;
}

export type DeviceCommandError =
  | 'NO_OBJECT'
  | 'AMBIGUOUS_UID'
  | 'NO_CONNECTION'
  | 'MPASS_IS_INCORRECT'
  | 'BAD_DATA'
  | 'NO_RESPONSE'
  | 'INVALID_PACKET_NUMBER'
  | 'INVALID_PACKET_COUNT'
  | 'CONFIG_REJECTED';

export type DeviceCommandOutcome =
  | { readonly ok: true; readonly device: DeviceIdentity; readonly packets: readonly Buffer[] }
  | {
      readonly ok: false;
      readonly error: DeviceCommandError;
      readonly device?: DeviceIdentity;
      readonly message?: string;
    };

export interface DeviceCommandPort {
  execute(request: DeviceCommandRequest): Promise<DeviceCommandOutcome>;
}

/** Device reply timeout of both command endpoints (management API §Limits). */
export const DEVICE_REPLY_TIMEOUT_MS = 10_000;
