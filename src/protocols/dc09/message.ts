/**
 * The DC-09 message body (SIA DC-09 §5.5.1):
 *   "id"<seq>[R<rcvr>][L<line>]#<acct>[<data>][<x data>]...[_<timestamp>]
 * Encrypted ("*id", §5.4.6): everything after '[' is hex of "<pad>|<data>]<x data>...<timestamp>".
 * Parsing is byte-transparent (latin1) so field lengths are byte counts; header fields are kept exactly as
 * received (case, leading zeros) because replies must echo them verbatim (§5.5.3).
 */
import { decryptBlocks, decryptPayload } from './crypto.js';
import { hasTimestampShape, parseTimestamp } from './timestamp.js';

export type Dc09Token = 'SIA-DCS' | 'ADM-CID' | 'NULL';
const KNOWN_TOKENS: ReadonlySet<string> = new Set<Dc09Token>(['SIA-DCS', 'ADM-CID', 'NULL']);
/** Replies a receiver may see if a peer echoes: never answered (answering a reply could loop). */
const REPLY_TOKENS: ReadonlySet<string> = new Set(['ACK', 'NAK', 'DUH', 'RSP']);
/** Vigil's device link shares the envelope (docs/device-link.md). */
const FOREIGN_PREFIX = 'VL-';
const MAX_TOKEN_CHARS = 32;
/** Receiver number and line prefix: 1-6 hex digits (§5.5.1.6). */
const MAX_HEX_FIELD = 6;
const ACCOUNT_RE = /^[0-9A-Fa-f]{3,16}$/;
/** Tolerated text account: letters and digits only, so it can never break a reply's framing. */
export const TEXT_ACCOUNT_RE = /^[0-9A-Za-z]{3,16}$/;

/**
 * Deviations in the header that real panels show (docs/dc09.md "Tolerances"):
 *   empty-line    an 'L' with no digits ("0001L#1234[...", "0001L[#9999|..."): echoed as a bare 'L';
 *   text-account  an account with letters beyond A-F (3-16 letters and digits).
 */
export type MessageQuirk = 'empty-line' | 'text-account';

export interface MessageTolerances {
  emptyLine?: boolean;
  textAccount?: boolean;
}

export interface ExtendedField {
  /** The identifier letter (§5.5.1.7 sub-clauses; 2021 table), e.g. X longitude, V verification, H time of occurrence). */
  id: string;
  value: string;
}

export interface MessageHeader {
  /** The ID token without the encryption '*'. */
  token: string;
  encrypted: boolean;
  /** Four decimal digits as received (§5.5.1.5). */
  sequence: string;
  receiver?: string;
  line?: string;
  account?: string;
  /** Tolerated deviations; absent when the message follows the standard. */
  quirks?: MessageQuirk[];
}

export interface ParsedMessage extends MessageHeader {
  kind: 'message';
  token: Dc09Token;
  /** Text between '[' and ']' (plain, or after opening an encrypted message); null while still encrypted. */
  data: string | null;
  /** Encrypted messages: the hex after '['. */
  cipherHex: string | null;
  extended: ExtendedField[];
  /** "HH:MM:SS,MM-DD-YYYY" as received, without '_'. */
  timestampText: string | null;
  /** timestampText read as UTC; null when absent or not a real date. */
  timestamp: number | null;
}

export interface ForeignMessage {
  kind: 'foreign';
  /** The token between the quotes, '*' included. */
  token: string;
  body: Buffer;
}

export type ParseFailureReason = 'unknown-token' | 'reply-token' | 'format' | 'account';

export interface ParseFailure {
  kind: 'invalid';
  reason: ParseFailureReason;
  detail: string;
  /** Whatever could be read before the failure, for a DUH that echoes it. */
  header: Partial<MessageHeader>;
}

export type ParseResult = ParsedMessage | ForeignMessage | ParseFailure;

interface Tail {
  data: string;
  extended: ExtendedField[];
  timestampText: string | null;
  timestamp: number | null;
}

function fail(reason: ParseFailureReason, detail: string, header: Partial<MessageHeader>): ParseFailure {
  return { kind: 'invalid', reason, detail, header };
}

function isHexCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** Index after the run of hex digits starting at `start` (char codes, no regex: this runs for every frame). */
function hexRunEnd(text: string, start: number): number {
  let end = start;
  while (end < text.length && isHexCode(text.charCodeAt(end))) end++;
  return end;
}

/** Reads "[R..][L..][#..]" from `from` into header; returns the index of the data block's "[" or a failure. */
export function readRouting(
  text: string,
  from: number,
  header: Partial<MessageHeader>,
  tol?: MessageTolerances,
): number | ParseFailure {
  let pos = from;
  if (text.charCodeAt(pos) === 0x52 /* R */) {
    const end = hexRunEnd(text, pos + 1);
    // 1-6 hex digits (§5.5.1.6); the run holds hex digits only, so its length decides.
    if (end === pos + 1 || end - pos - 1 > MAX_HEX_FIELD)
      return fail('format', 'receiver number must be 1-6 hex digits', header);
    header.receiver = text.slice(pos + 1, end);
    pos = end;
  }
  if (text.charCodeAt(pos) === 0x4c /* L */) {
    const end = hexRunEnd(text, pos + 1);
    const empty = end === pos + 1;
    // Tolerated (checked only once the standard reading failed): an 'L' with no digits, kept as '' and echoed as 'L'.
    if (empty && tol?.emptyLine) (header.quirks ??= []).push('empty-line');
    else if (empty || end - pos - 1 > MAX_HEX_FIELD)
      return fail('format', 'line prefix must be 1-6 hex digits', header);
    header.line = text.slice(pos + 1, end);
    pos = end;
  }
  if (text[pos] === '#') {
    const end = text.indexOf('[', pos);
    const value = text.slice(pos + 1, end < 0 ? text.length : end);
    if (!ACCOUNT_RE.test(value) && tol?.textAccount && TEXT_ACCOUNT_RE.test(value)) {
      (header.quirks ??= []).push('text-account');
    } else if (!ACCOUNT_RE.test(value)) {
      // Echo the raw text only when it cannot break the reply's framing.
      if (end >= 0 && !/[\]"\r\n]/.test(value)) header.account = value;
      return fail('account', 'account must be 3-16 hex digits', header);
    }
    header.account = value;
    pos = end;
  }
  if (text[pos] !== '[') return fail('format', 'expected "[" after the header', header);
  return pos;
}

export function parseMessage(body: Buffer, tol?: MessageTolerances): ParseResult {
  const text = body.toString('latin1');
  if (text[0] !== '"') return fail('format', 'body does not start with an ID token', {});
  const close = text.indexOf('"', 1);
  if (close < 0 || close > MAX_TOKEN_CHARS + 1) return fail('format', 'ID token not closed', {});
  const rawToken = text.slice(1, close);
  const encrypted = rawToken.startsWith('*');
  const token = encrypted ? rawToken.slice(1) : rawToken;
  if (token.startsWith(FOREIGN_PREFIX)) return { kind: 'foreign', token: rawToken, body };
  const header: Partial<MessageHeader> = { token, encrypted };
  if (REPLY_TOKENS.has(token)) return fail('reply-token', `"${rawToken}" is a reply`, header);
  if (!isSequence(text, close + 1)) return fail('format', 'sequence must be 4 digits', header);
  const sequence = text.slice(close + 1, close + 5);
  header.sequence = sequence;
  const bracket = readRouting(text, close + 5, header, tol);
  if (typeof bracket !== 'number') return bracket;
  if (!KNOWN_TOKENS.has(token)) return fail('unknown-token', `unsupported ID token "${rawToken}"`, header);
  const rest = text.slice(bracket + 1);
  // One literal per message, optional header fields assigned after (no spreads: this runs for every frame).
  let msg: ParsedMessage;
  if (encrypted) {
    msg = {
      kind: 'message',
      token: token as Dc09Token,
      encrypted,
      sequence,
      data: null,
      cipherHex: rest,
      extended: [],
      timestampText: null,
      timestamp: null,
    };
  } else {
    const tail = parseTail(rest);
    if (typeof tail === 'string') return fail('format', tail, header);
    msg = {
      kind: 'message',
      token: token as Dc09Token,
      encrypted,
      sequence,
      data: tail.data,
      cipherHex: null,
      extended: tail.extended,
      timestampText: tail.timestampText,
      timestamp: tail.timestamp,
    };
  }
  if (header.receiver !== undefined) msg.receiver = header.receiver;
  if (header.line !== undefined) msg.line = header.line;
  if (header.account !== undefined) msg.account = header.account;
  if (header.quirks !== undefined) msg.quirks = header.quirks;
  return msg;
}

/** Four decimal digits at `at` (§5.5.1.5). */
function isSequence(text: string, at: number): boolean {
  return (
    at + 4 <= text.length &&
    isDigitCode(text.charCodeAt(at)) &&
    isDigitCode(text.charCodeAt(at + 1)) &&
    isDigitCode(text.charCodeAt(at + 2)) &&
    isDigitCode(text.charCodeAt(at + 3))
  );
}

/**
 * Opens an encrypted message with the key. Null when the hex is malformed, the key is wrong or the plaintext is not
 * "<pad>|<data>]...". A plain message is returned unchanged.
 */
export function openMessage(msg: ParsedMessage, key: Buffer): ParsedMessage | null {
  if (!msg.encrypted || msg.cipherHex === null) return msg;
  const plain = openSealed(msg.cipherHex, key);
  if (plain === null) return null;
  const tail = parseTail(plain);
  if (typeof tail === 'string') return null;
  return { ...msg, ...tail };
}

/**
 * Decrypts "<pad>|<data>]..." and returns what follows the pad. Tolerated: a pad without its '|' when the data is
 * empty ("<pad>]_<timestamp>"), as some transmitters send in *NULL and some receivers in *ACK; the rest must then
 * still parse as a tail, which a wrong key practically never produces.
 */
export function openSealed(hex: string, key: Buffer): string | null {
  const plain = decryptPayload(hex, key);
  if (plain !== null) return plain;
  const raw = decryptBlocks(hex, key);
  if (raw === null) return null;
  const close = raw.indexOf(0x5d);
  return close < 0 ? null : raw.subarray(close).toString('latin1');
}

/** Parses what follows the data block's '[': "<data>]" then "[x...]" blocks then the optional timestamp. */
export function parseTail(rest: string): Tail | string {
  const close = rest.indexOf(']');
  if (close < 0) return 'data block not closed';
  const data = rest.slice(0, close);
  if (data.includes('[')) return 'nested "[" in the data block';
  const extended: ExtendedField[] = [];
  let pos = close + 1;
  while (rest[pos] === '[') {
    const end = rest.indexOf(']', pos);
    if (end < 0) return 'extended data block not closed';
    const field = rest.slice(pos + 1, end);
    if (field.includes('[')) return 'nested "[" in extended data';
    extended.push({ id: field.slice(0, 1), value: field.slice(1) });
    pos = end + 1;
  }
  const trailer = rest.slice(pos);
  if (trailer === '') return { data, extended, timestampText: null, timestamp: null };
  // Tolerated: a timestamp without its leading '_' (seen from some panels).
  const stamp = trailer.startsWith('_') ? trailer.slice(1) : trailer;
  if (!hasTimestampShape(stamp)) return 'unexpected characters after the data';
  return { data, extended, timestampText: stamp, timestamp: parseTimestamp(stamp) };
}
