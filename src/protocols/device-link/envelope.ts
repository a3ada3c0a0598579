/**
 * The device-link body inside the DC-09 frame (docs/device-link.md §2):
 *   plain      "VL-<TYPE>"<seq>[R<rcvr>][L<line>][#<acct>][<fields>][_<timestamp>]
 *   encrypted  "*VL-<TYPE>"<seq>[R<rcvr>][L<line>][#<acct>][<hex of AES-CBC(pad|<fields>][_<timestamp>])>
 *   session    "*VL-<TYPE>"<seq>[R<rcvr>][L<line>][#<acct>][<hex of IV || AES-GCM(<fields>][_<timestamp>]) || tag>
 * the first two exactly the DC-09 layout (SIA DC-09 §5.5.1, encryption §5.4.6): token and header in clear,
 * everything after '[' encrypted. Pure; splitBody never throws.
 */
import { decryptPayload, encryptPayload, type RandomBytes } from '../dc09/crypto.js';
import { formatTimestamp, parseTimestamp } from '../dc09/timestamp.js';
import type { LinkDecodeError } from './messages.js';
import { openSession, sealSession, SessionKey } from './session-cipher.js';

/**
 * How a link message is enciphered: a Buffer is the receiver's DC-09 key (AES-CBC, the handshake of
 * an encrypted HELLO), a SessionKey the connection's session key (AES-GCM, everything after the
 * WELCOME of a version-2 link), null plain.
 */
export type LinkKey = Buffer | SessionKey | null;

export const LINK_PREFIX = 'VL-';
const MAX_TOKEN_CHARS = 32;
/** Printable ASCII except the framing characters '[', ']' and '"'. */
const BLOCK_RE = /^[\x20-\x21\x23-\x5a\x5c\x5e-\x7e]*$/;
const HEADER_RE = /^(?:R([0-9A-Fa-f]{1,6}))?(?:L([0-9A-Fa-f]{1,6}))?(?:#([0-9A-Fa-f]{3,16}))?$/;
const TIMESTAMP_CHARS = 20; // "_HH:MM:SS,MM-DD-YYYY"

export interface Envelope {
  /** The token without '*', e.g. `VL-RSP`. */
  readonly token: string;
  readonly encrypted: boolean;
  readonly seq: number;
  /** The DC-09 `#acct` header field, upper-cased, when present. */
  readonly account?: string;
  /** The text between '[' and ']' (after decryption). */
  readonly block: string;
  readonly timestamp: number | null;
}

export interface EnvelopeInput {
  readonly token: string;
  readonly seq: number;
  readonly account?: string;
  readonly block: string;
  readonly timestamp: number | null;
}

/** True when a DC-09 frame body carries a device-link message (`"VL-` or `"*VL-`). */
export function isLinkBody(body: Buffer): boolean {
  const start = body[1] === 0x2a ? 2 : 1; // '*'
  return body[0] === 0x22 && body.toString('latin1', start, start + LINK_PREFIX.length) === LINK_PREFIX;
}

export function buildBody(input: EnvelopeInput, key: LinkKey, randomBytes?: RandomBytes): string {
  const seq = String(input.seq).padStart(4, '0');
  const header = input.account === undefined ? '' : `#${input.account}`;
  const stamp = input.timestamp === null ? '' : `_${formatTimestamp(input.timestamp)}`;
  if (!key) return `"${input.token}"${seq}${header}[${input.block}]${stamp}`;
  const clear = `"*${input.token}"${seq}${header}[`;
  if (key instanceof SessionKey) return clear + sealSession(`${input.block}]${stamp}`, clear, key, randomBytes);
  return clear + encryptPayload(`${input.block}]${stamp}`, key, randomBytes);
}

function failure(
  error: LinkDecodeError['error'],
  detail: string,
  partial: Partial<LinkDecodeError> = {},
): LinkDecodeError {
  return { error, detail, ...partial };
}

/** Reads `<block>]` optionally followed by `_<timestamp>`; null when anything else follows. */
function readTail(text: string): { block: string; timestamp: number | null } | null {
  const close = text.indexOf(']');
  if (close < 0) return null;
  const block = text.slice(0, close);
  const rest = text.slice(close + 1);
  if (!BLOCK_RE.test(block)) return null;
  if (rest === '') return { block, timestamp: null };
  if (rest.length !== TIMESTAMP_CHARS || rest[0] !== '_') return null;
  const timestamp = parseTimestamp(rest.slice(1));
  return timestamp === null ? null : { block, timestamp };
}

export function splitBody(body: Buffer, key: LinkKey): Envelope | LinkDecodeError {
  if (!isLinkBody(body)) return failure('not-link', 'body does not start with a "VL- token');
  const text = body.toString('latin1');
  const close = text.indexOf('"', 1);
  if (close < 0 || close > MAX_TOKEN_CHARS + 1) return failure('format', 'token not closed');
  const encrypted = text[1] === '*';
  const token = text.slice(encrypted ? 2 : 1, close);
  const seqText = text.slice(close + 1, close + 5);
  if (!/^\d{4}$/.test(seqText)) return failure('format', 'sequence must be 4 digits', { token, encrypted });
  const seq = Number(seqText);
  const known = { token, encrypted, seq };
  const bracket = text.indexOf('[', close + 5);
  const header = bracket < 0 ? null : HEADER_RE.exec(text.slice(close + 5, bracket));
  if (!header) return failure('format', 'bad header before "["', known);
  const account = header[3]?.toUpperCase();
  const after = text.slice(bracket + 1);
  let tail: ReturnType<typeof readTail>;
  if (encrypted) {
    if (!key) return failure('no-key', 'encrypted message and no key', known);
    const plain =
      key instanceof SessionKey ? openSession(after, text.slice(0, bracket + 1), key) : decryptPayload(after, key);
    tail = plain === null ? null : readTail(plain);
    if (!tail) return failure('crypto', 'does not decrypt with the key', known);
    // SIA DC-09 §5.5.1.9: an encrypted message always carries its timestamp (replay defence).
    if (tail.timestamp === null) return failure('format', 'encrypted message without timestamp', known);
  } else {
    tail = readTail(after);
    if (!tail) return failure('format', 'bad field block or timestamp', known);
  }
  return { token, encrypted, seq, ...(account === undefined ? {} : { account }), ...tail };
}
