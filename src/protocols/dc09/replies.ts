/**
 * Receiver replies (SIA DC-09 §5.5.3) and their reading on the transmitter side.
 *   ACK  "ACK"<seq>[R..][L..][#acct][]                      fields echoed exactly as received (§5.5.3.1)
 *   *ACK "*ACK"<seq>[R..][L..][#acct][<hex of pad|]_timestamp>  reply to an encrypted message; the receiver's time
 *                                                             travels inside the encrypted part
 *   NAK  "NAK"0000R0L0A0[]_HH:MM:SS,MM-DD-YYYY              failed time test; never encrypted (§5.5.3.2)
 *   DUH  "DUH"<seq>[R..][L..][#acct][]                      correctly received but not processable (§5.5.3.3)
 */
import { VigilError } from '../../core/errors.js';
import { encryptPayload, type RandomBytes } from './crypto.js';
import { encodeFrame } from './frame.js';
import { openSealed, parseTail, readRouting, type ExtendedField, type MessageHeader } from './message.js';
import { formatTimestamp, parseTimestamp } from './timestamp.js';

export interface AckOptions {
  /** Receiver time (ms) for the encrypted ACK's timestamp. */
  now: number;
  key?: Buffer | null;
  randomBytes?: RandomBytes;
}

function routing(h: Partial<MessageHeader>): string {
  return (
    (h.sequence ?? '0000') +
    (h.receiver !== undefined ? `R${h.receiver}` : '') +
    (h.line !== undefined ? `L${h.line}` : '') +
    (h.account !== undefined ? `#${h.account}` : '')
  );
}

export function buildAck(msg: MessageHeader, opts: AckOptions): Buffer {
  if (!msg.encrypted) return encodeFrame(`"ACK"${routing(msg)}[]`);
  if (!opts.key) throw new VigilError('FRAME_INVALID', 'an encrypted message needs the key to build its *ACK');
  const sealed = encryptPayload(`]_${formatTimestamp(opts.now)}`, opts.key, opts.randomBytes);
  return encodeFrame(`"*ACK"${routing(msg)}[${sealed}`);
}

export function buildNak(now: number | Date): Buffer {
  const ms = typeof now === 'number' ? now : now.getTime();
  return encodeFrame(`"NAK"0000R0L0A0[]_${formatTimestamp(ms)}`);
}

/** Echoes whatever header fields could be read; a missing sequence becomes 0000. Never encrypted. */
export function buildDuh(msg: Partial<MessageHeader>): Buffer {
  return encodeFrame(`"DUH"${routing(msg)}[]`);
}

export interface ParsedReply {
  kind: 'ACK' | 'NAK' | 'DUH' | 'RSP';
  encrypted: boolean;
  sequence: string;
  receiver?: string;
  line?: string;
  account?: string;
  /** False for an encrypted reply that could not be opened (no key, wrong key). */
  opened: boolean;
  extended: ExtendedField[];
  /** The receiver's time: NAK always, *ACK inside the encrypted part. */
  timestampText: string | null;
  timestamp: number | null;
}

const REPLY_KINDS: ReadonlySet<string> = new Set(['ACK', 'NAK', 'DUH', 'RSP']);
const NAK_RE = /^"NAK"(\d{4})R0L0A0\[\]_?(\d{2}:\d{2}:\d{2},\d{2}-\d{2}-\d{4})?$/;

/** Reads a receiver reply; null when the body is not one. */
export function parseReply(body: Buffer, key?: Buffer | null): ParsedReply | null {
  const text = body.toString('latin1');
  const nak = NAK_RE.exec(text);
  if (nak) {
    const stamp = nak[2] ?? null;
    return {
      kind: 'NAK',
      encrypted: false,
      sequence: nak[1]!,
      opened: true,
      extended: [],
      timestampText: stamp,
      timestamp: stamp === null ? null : parseTimestamp(stamp),
    };
  }
  const m = /^"(\*?)([A-Z]{3})"(\d{4})/.exec(text);
  if (!m || !REPLY_KINDS.has(m[2]!)) return null;
  const header: Partial<MessageHeader> = { sequence: m[3]! };
  const bracket = readRouting(text, m[0].length, header);
  if (typeof bracket !== 'number') return null;
  const encrypted = m[1] === '*';
  const reply: ParsedReply = {
    kind: m[2] as ParsedReply['kind'],
    encrypted,
    sequence: m[3]!,
    opened: !encrypted,
    extended: [],
    timestampText: null,
    timestamp: null,
  };
  if (header.receiver !== undefined) reply.receiver = header.receiver;
  if (header.line !== undefined) reply.line = header.line;
  if (header.account !== undefined) reply.account = header.account;
  const rest = text.slice(bracket + 1);
  const plain = encrypted ? (key ? openSealed(rest, key) : null) : rest;
  if (plain === null) return reply;
  const tail = parseTail(plain);
  if (typeof tail === 'string') return encrypted ? reply : null;
  return {
    ...reply,
    opened: true,
    extended: tail.extended,
    timestampText: tail.timestampText,
    timestamp: tail.timestamp,
  };
}
