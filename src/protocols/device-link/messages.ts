/**
 * The device link's message types (docs/device-link.md). Values here are already validated and
 * normalised (upper-case hex, numbers in range); the codec turns them into frames and back.
 */

/**
 * The only protocol version this gateway speaks (docs/device-link.md §3.1). Version 2 added the
 * per-device key: challenge-response on every HELLO and a per-connection session key.
 */
export const LINK_VERSION = 2;
/** Bytes of a HELLO / challenge nonce (docs/device-link.md §3.1). */
export const NONCE_BYTES = 16;
/** Bytes of a device key and of an X25519 public key. */
export const DEVICE_KEY_BYTES = 32;
/** Bytes of a proof (HMAC-SHA256). */
export const PROOF_BYTES = 32;

/**
 * Largest command, configuration or reply payload in one message. Chosen so that the largest
 * encrypted VL-CMD (64-byte access code, 16 pad bytes, timestamp) still fits the DC-09 length
 * field's 0xFFF bytes (docs/device-link.md §2.4).
 */
export const MAX_DATA_BYTES = 900;
/** Longest cloud access code the link carries, in UTF-8 bytes. */
export const MAX_ACCESS_CODE_BYTES = 64;
/** Largest packet number / count a VL-RSP can carry (4 decimal digits). */
export const MAX_PACKET_FIELD = 9999;

export type ResponseStatus = 'OK' | 'MPASS' | 'BAD' | 'REJ';
export const RESPONSE_STATUSES: readonly ResponseStatus[] = ['OK', 'MPASS', 'BAD', 'REJ'];

export type RefuseReason = 'VER' | 'FMT' | 'KEY' | 'ENC' | 'TIME' | 'DENY' | 'AUTH';
export const REFUSE_REASONS: readonly RefuseReason[] = ['VER', 'FMT', 'KEY', 'ENC', 'TIME', 'DENY', 'AUTH'];

/** How the gateway vouches for the caller (docs/device-link.md §3.3, field `A`). */
export type CommandAuth =
  | { readonly mode: 'none' }
  /** The caller holds the `omit_mpass` scope: the device must not ask for the master password. */
  | { readonly mode: 'omit' }
  /** The caller's cloud access code, checked by the device against its master password. */
  | { readonly mode: 'code'; readonly code: string };

interface Common {
  /** The DC-09 sequence field, 0..9999; the request id of VL-CMD / VL-CFG / VL-TIME. */
  readonly seq: number;
  /** Milliseconds since the epoch (whole seconds on the wire), or null when the message had none. */
  readonly timestamp: number | null;
}

export interface HelloMessage extends Common {
  readonly type: 'hello';
  readonly version: number;
  /** 6..32 upper-case hex digits. */
  readonly uid: string;
  readonly hwId?: string;
  readonly firmware?: string;
  /** DC-09 account, 3..16 upper-case hex digits, leading zeros kept. */
  readonly account?: string;
  /** The device's nonce, 32 upper-case hex digits (required from version 2). */
  readonly nonce?: string;
  /** The device's X25519 public key, 64 upper-case hex digits: the device asks to enrol (§4.2). */
  readonly enrolKey?: string;
}

/** VL-CHAL: the gateway's challenge to a HELLO (same sequence). */
export interface ChallengeMessage extends Common {
  readonly type: 'challenge';
  /** The gateway's nonce, 32 upper-case hex digits. */
  readonly nonce: string;
  /** The gateway's X25519 public key when it accepted the enrolment, 64 upper-case hex digits. */
  readonly enrolKey?: string;
}

/** VL-PROOF: the device's answer to VL-CHAL (same sequence). */
export interface ProofMessage extends Common {
  readonly type: 'proof';
  /** HMAC-SHA256 of the transcript with the device key, 64 upper-case hex digits. */
  readonly proof: string;
}

export interface WelcomeMessage extends Common {
  readonly type: 'welcome';
  readonly version: number;
  /** The gateway's own proof of the device key (version 2), 64 upper-case hex digits. */
  readonly proof?: string;
}

export interface RefuseMessage extends Common {
  readonly type: 'refuse';
  readonly reason: RefuseReason;
}

export interface CommandMessage extends Common {
  readonly type: 'command';
  /** VL-CMD carries `control`, VL-CFG carries `config`. */
  readonly kind: 'control' | 'config';
  readonly auth: CommandAuth;
  /** false: the device answers with its status only (one packet, no data). */
  readonly replyWanted: boolean;
  readonly data: Buffer;
}

export interface ResponseMessage extends Common {
  readonly type: 'response';
  readonly packetNumber: number;
  readonly packetCount: number;
  readonly status: ResponseStatus;
  readonly data: Buffer;
}

export interface TimeMessage extends Common {
  readonly type: 'time';
  /** Offset of the gateway's local time from UTC in minutes, when configured. */
  readonly utcOffsetMinutes?: number;
}

export interface TimeAckMessage extends Common {
  readonly type: 'time-ack';
}

export type LinkMessage =
  | HelloMessage
  | ChallengeMessage
  | ProofMessage
  | WelcomeMessage
  | RefuseMessage
  | CommandMessage
  | ResponseMessage
  | TimeMessage
  | TimeAckMessage;

/** A decoded message and whether it arrived encrypted. */
export type DecodedLinkMessage = LinkMessage & { readonly encrypted: boolean };

export type LinkDecodeErrorKind =
  /** The body does not start with a `"VL-` or `"*VL-` token: not a device-link message. */
  | 'not-link'
  /** A `VL-` token this gateway does not know. */
  | 'unknown-type'
  /** Token known, but the layout or a field value is wrong. */
  | 'format'
  /** An encrypted message and no key configured. */
  | 'no-key'
  /** An encrypted message that does not decrypt with the key. */
  | 'crypto';

export interface LinkDecodeError {
  readonly error: LinkDecodeErrorKind;
  /** The token between the quotes, when readable (e.g. `VL-HELLO`, without `*`). */
  readonly token?: string;
  /** The sequence field, when readable: lets the gateway refuse a HELLO it could not read. */
  readonly seq?: number;
  readonly encrypted?: boolean;
  readonly detail?: string;
}
