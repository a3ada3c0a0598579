/**
 * Frames of the device status output (docs/status-output.md §Framing): a pure codec, values in,
 * bytes out, no sockets or timers.
 *
 * One frame is one line ending in LF (0x0A):
 * - plain:     the JSON object itself (JSON.stringify never emits a raw LF, so LF cannot occur inside);
 * - encrypted: upper-case hex of AES-128-CBC, all-zero IV, over "<pad>|<JSON>", the key being the
 *   16 characters of device_status_output.encryption_key as bytes. This is the SIA DC-09 scheme
 *   (DC-09-2013 §5.4.6, §5.5.1.7), reused from src/protocols/dc09/crypto.ts: the random 1..16
 *   character pad varies the first block, so equal frames never encrypt alike.
 * Keys are written in a fixed order so a frame's bytes are predictable (tests assert them).
 */
import { VigilError } from '../core/errors.js';
import { decryptPayload, encryptPayload, parseKey, type RandomBytes } from '../protocols/dc09/crypto.js';

/** Format version carried in every frame as `v`; bumped only for incompatible changes. */
export const STATUS_FORMAT_VERSION = 1;

export type ObjectStatusKind = 'state' | 'online' | 'lost' | 'restored' | 'link_test' | 'signal';
export type ConnectionStateName = 'online' | 'offline' | 'lost';

/** The object a status frame is about: the fields a dashboard needs to place it. */
export interface StatusObject {
  readonly id: number;
  readonly account: string;
  readonly uid: string | null;
  readonly receiverId: number;
  readonly mainObjectId: number | null;
  /** The connection state after the change. */
  readonly connectionState: ConnectionStateName;
}

/** One object state change (or, with kind 'state', one object's state in the snapshot at connect). */
export interface StatusChange {
  readonly kind: ObjectStatusKind;
  /** When it happened, ms since the epoch. */
  readonly at: number;
  readonly object: StatusObject;
  /** kind 'signal' only: the level as the device reported it (unit of the device, e.g. dBm). */
  readonly signalLevel?: number;
}

export interface HelloFrame {
  readonly at: number;
  readonly instance: string;
  /** How many 'state' frames follow (the snapshot). */
  readonly objects: number;
}

export type StatusFrame =
  | ({ readonly type: 'hello' } & HelloFrame)
  | { readonly type: 'heartbeat'; readonly at: number }
  /** Encrypted output only: the first frame; the client proves the key by sending `auth` with the nonce. */
  | { readonly type: 'challenge'; readonly at: number; readonly nonce: string }
  /** Client to server (docs/status-output.md §Proof): the challenge's nonce, encrypted with the key. */
  | { readonly type: 'auth'; readonly nonce: string }
  | ({ readonly type: ObjectStatusKind } & Omit<StatusChange, 'kind'>);

const LF = 0x0a;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The JSON text of a frame, keys in documented order. */
export function statusJson(frame: StatusFrame): string {
  switch (frame.type) {
    case 'hello':
      return JSON.stringify({
        v: STATUS_FORMAT_VERSION,
        type: 'hello',
        at: iso(frame.at),
        instance: frame.instance,
        objects: frame.objects,
      });
    case 'heartbeat':
      return JSON.stringify({ v: STATUS_FORMAT_VERSION, type: 'heartbeat', at: iso(frame.at) });
    case 'challenge':
      return JSON.stringify({ v: STATUS_FORMAT_VERSION, type: 'challenge', at: iso(frame.at), nonce: frame.nonce });
    case 'auth':
      return JSON.stringify({ v: STATUS_FORMAT_VERSION, type: 'auth', nonce: frame.nonce });
    default: {
      const o = frame.object;
      const body: Record<string, unknown> = {
        v: STATUS_FORMAT_VERSION,
        type: frame.type,
        at: iso(frame.at),
        object_id: o.id,
        main_object_id: o.mainObjectId,
        account: o.account,
        uid: o.uid,
        receiver_id: o.receiverId,
        state: o.connectionState,
      };
      if (frame.signalLevel !== undefined) body.signal_level = frame.signalLevel;
      return JSON.stringify(body);
    }
  }
}

export function changeFrame(change: StatusChange): StatusFrame {
  const { kind, ...rest } = change;
  return { type: kind, ...rest };
}

/** Turns frames into wire bytes: plain JSON lines, or encrypted hex lines when a key is given. */
export class StatusEncoder {
  private readonly key: Buffer | null;
  private readonly randomBytes: RandomBytes | undefined;

  /** `key`: the 16-character encryption_key, or null for plain frames. */
  constructor(key: string | null, randomBytes?: RandomBytes) {
    if (key !== null && key.length !== 16) {
      throw new VigilError('INVALID_SETTINGS', 'device_status_output.encryption_key must be exactly 16 characters');
    }
    this.key = key === null ? null : parseKey(key, 'ascii');
    this.randomBytes = randomBytes;
  }

  get encrypted(): boolean {
    return this.key !== null;
  }

  encode(frame: StatusFrame): Buffer {
    const json = statusJson(frame);
    // JSON keeps non-ASCII characters as they are; encryptPayload takes latin1 text, so the UTF-8
    // bytes are passed through it one character per byte and come out of the decrypt unchanged.
    const text =
      this.key === null
        ? json
        : encryptPayload(Buffer.from(json, 'utf8').toString('latin1'), this.key, this.randomBytes);
    return Buffer.from(`${text}\n`, this.key === null ? 'utf8' : 'latin1');
  }
}

/**
 * The client side, for tests and as the reference for dashboard authors: splits a byte stream into
 * frames (a frame may arrive in pieces, several in one chunk) and decodes each line.
 */
export class StatusDecoder {
  private readonly key: Buffer | null;
  private pending: Buffer = Buffer.alloc(0);

  constructor(key: string | null) {
    this.key = key === null ? null : parseKey(key, 'ascii');
  }

  /** Feeds bytes; returns the complete frames' JSON values (a line that does not decode yields null). */
  push(chunk: Buffer): Array<Record<string, unknown> | null> {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Array<Record<string, unknown> | null> = [];
    let start = 0;
    for (let i = this.pending.indexOf(LF); i >= 0; i = this.pending.indexOf(LF, start)) {
      out.push(this.decodeLine(this.pending.subarray(start, i)));
      start = i + 1;
    }
    this.pending = this.pending.subarray(start);
    return out;
  }

  private decodeLine(line: Buffer): Record<string, unknown> | null {
    let json: string | null;
    if (this.key === null) json = line.toString('utf8');
    else {
      const latin1 = decryptPayload(line.toString('latin1'), this.key);
      json = latin1 === null ? null : Buffer.from(latin1, 'latin1').toString('utf8');
    }
    if (json === null) return null;
    try {
      const value: unknown = JSON.parse(json);
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : null;
    } catch {
      return null;
    }
  }
}
