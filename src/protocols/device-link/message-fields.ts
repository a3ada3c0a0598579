/**
 * The field block of each message type (docs/device-link.md §3): which keys, in which order,
 * with which values. encodeFields throws VigilError on values the wire cannot carry;
 * decodeFields returns a reason string instead of throwing.
 */
import { VigilError } from '../../core/errors.js';
import type { Envelope } from './envelope.js';
import {
  buildFieldBlock,
  bytesToHex,
  formatOffset,
  hexToBytes,
  isHex,
  isLinkText,
  parseDecimal,
  parseFieldBlock,
  parseOffset,
} from './fields.js';
import {
  DEVICE_KEY_BYTES,
  MAX_ACCESS_CODE_BYTES,
  NONCE_BYTES,
  PROOF_BYTES,
  MAX_DATA_BYTES,
  MAX_PACKET_FIELD,
  REFUSE_REASONS,
  RESPONSE_STATUSES,
  type CommandAuth,
  type DecodedLinkMessage,
  type LinkMessage,
  type RefuseReason,
  type ResponseStatus,
} from './messages.js';

export type TypeOfToken =
  | { readonly type: Exclude<LinkMessage['type'], 'command'> }
  | { readonly type: 'command'; readonly kind: 'control' | 'config' };

const BY_TOKEN: Readonly<Record<string, TypeOfToken>> = {
  'VL-HELLO': { type: 'hello' },
  'VL-CHAL': { type: 'challenge' },
  'VL-PROOF': { type: 'proof' },
  'VL-WELCOME': { type: 'welcome' },
  'VL-REFUSE': { type: 'refuse' },
  'VL-CMD': { type: 'command', kind: 'control' },
  'VL-CFG': { type: 'command', kind: 'config' },
  'VL-RSP': { type: 'response' },
  'VL-TIME': { type: 'time' },
  'VL-ACK': { type: 'time-ack' },
};

export function typeOfToken(token: string): TypeOfToken | undefined {
  return Object.hasOwn(BY_TOKEN, token) ? BY_TOKEN[token] : undefined;
}

export function tokenOf(message: LinkMessage): string {
  switch (message.type) {
    case 'hello':
      return 'VL-HELLO';
    case 'challenge':
      return 'VL-CHAL';
    case 'proof':
      return 'VL-PROOF';
    case 'welcome':
      return 'VL-WELCOME';
    case 'refuse':
      return 'VL-REFUSE';
    case 'command':
      return message.kind === 'config' ? 'VL-CFG' : 'VL-CMD';
    case 'response':
      return 'VL-RSP';
    case 'time':
      return 'VL-TIME';
    case 'time-ack':
      return 'VL-ACK';
  }
}

function invalid(what: string): never {
  throw new VigilError('FRAME_INVALID', `device-link: ${what}`);
}

function check(ok: boolean, what: string): void {
  if (!ok) invalid(what);
}

function dataHex(data: Buffer): string {
  check(data.length <= MAX_DATA_BYTES, `data longer than ${MAX_DATA_BYTES} bytes`);
  return bytesToHex(data);
}

function encodeAuth(auth: CommandAuth): string {
  if (auth.mode === 'omit') return 'O';
  if (auth.mode === 'none') return 'N';
  const bytes = Buffer.from(auth.code, 'utf8');
  check(
    bytes.length >= 1 && bytes.length <= MAX_ACCESS_CODE_BYTES,
    `access code must be 1..${MAX_ACCESS_CODE_BYTES} bytes`,
  );
  // Hex keeps any character of the code clear of the '|' and ']' separators.
  return `M${bytesToHex(bytes)}`;
}

/** Exactly `bytes` bytes as hex (either case on input), upper case on the wire. */
function fixedHex(text: string, bytes: number, what: string): string {
  check(isHex(text, bytes * 2, bytes * 2), `${what} must be ${bytes * 2} hex digits`);
  return text.toUpperCase();
}

/** The value of an optional fixed-size hex field: undefined when absent, null when malformed. */
function optionalHex(text: string | undefined, bytes: number): string | undefined | null {
  if (text === undefined) return undefined;
  return isHex(text, bytes * 2, bytes * 2) ? text.toUpperCase() : null;
}

function counter(n: number, what: string): string {
  check(Number.isInteger(n) && n >= 0 && n <= MAX_PACKET_FIELD, `${what} must be 0..${MAX_PACKET_FIELD}`);
  return String(n);
}

export function encodeFields(m: LinkMessage): string {
  switch (m.type) {
    case 'hello':
      check(Number.isInteger(m.version) && m.version >= 0 && m.version <= 999, 'version must be 0..999');
      check(isHex(m.uid, 6, 32), 'uid must be 6..32 hex digits');
      check(m.hwId === undefined || isLinkText(m.hwId), 'hw id must be 1..32 of [0-9A-Za-z._:+/-]');
      check(m.firmware === undefined || isLinkText(m.firmware), 'firmware must be 1..32 of [0-9A-Za-z._:+/-]');
      check(m.account === undefined || isHex(m.account, 3, 16), 'account must be 3..16 hex digits');
      return buildFieldBlock([
        ['V', String(m.version)],
        ['U', m.uid.toUpperCase()],
        ['H', m.hwId],
        ['F', m.firmware],
        ['N', m.nonce === undefined ? undefined : fixedHex(m.nonce, NONCE_BYTES, 'nonce')],
        ['X', m.enrolKey === undefined ? undefined : fixedHex(m.enrolKey, DEVICE_KEY_BYTES, 'enrolment key')],
      ]);
    case 'challenge':
      return buildFieldBlock([
        ['G', fixedHex(m.nonce, NONCE_BYTES, 'nonce')],
        ['X', m.enrolKey === undefined ? undefined : fixedHex(m.enrolKey, DEVICE_KEY_BYTES, 'enrolment key')],
      ]);
    case 'proof':
      return buildFieldBlock([['P', fixedHex(m.proof, PROOF_BYTES, 'proof')]]);
    case 'welcome':
      check(Number.isInteger(m.version) && m.version >= 0 && m.version <= 999, 'version must be 0..999');
      return buildFieldBlock([
        ['V', String(m.version)],
        ['P', m.proof === undefined ? undefined : fixedHex(m.proof, PROOF_BYTES, 'proof')],
      ]);
    case 'refuse':
      check(REFUSE_REASONS.includes(m.reason), 'unknown refusal reason');
      return buildFieldBlock([['E', m.reason]]);
    case 'command':
      return buildFieldBlock([
        ['A', encodeAuth(m.auth)],
        ['Q', m.replyWanted ? '1' : '0'],
        ['D', dataHex(m.data)],
      ]);
    case 'response':
      check(RESPONSE_STATUSES.includes(m.status), 'unknown response status');
      return buildFieldBlock([
        ['N', counter(m.packetNumber, 'packet number')],
        ['C', counter(m.packetCount, 'packet count')],
        ['S', m.status],
        ['D', dataHex(m.data)],
      ]);
    case 'time': {
      const offset = m.utcOffsetMinutes;
      check(
        offset === undefined || (Number.isInteger(offset) && Math.abs(offset) <= 840),
        'utc offset must be -840..840',
      );
      return buildFieldBlock([['Z', offset === undefined ? undefined : formatOffset(offset)]]);
    }
    case 'time-ack':
      return '';
  }
}

function decodeAuth(text: string): CommandAuth | null {
  if (text === 'O') return { mode: 'omit' };
  if (text === 'N') return { mode: 'none' };
  if (text[0] !== 'M') return null;
  const bytes = hexToBytes(text.slice(1));
  if (!bytes || bytes.length < 1 || bytes.length > MAX_ACCESS_CODE_BYTES) return null;
  const code = bytes.toString('utf8');
  // Reject bytes that are not UTF-8: the decoder would silently replace them.
  return Buffer.from(code, 'utf8').equals(bytes) ? { mode: 'code', code } : null;
}

/** Decodes the field block of an envelope whose token is known; a string is the reason it failed. */
export function decodeFields(t: TypeOfToken, env: Envelope): DecodedLinkMessage | string {
  const f = parseFieldBlock(env.block);
  if (!f) return 'empty field or repeated key';
  const base = { seq: env.seq, timestamp: env.timestamp, encrypted: env.encrypted };
  switch (t.type) {
    case 'hello': {
      const version = parseDecimal(f.get('V') ?? '', 3);
      const uid = f.get('U') ?? '';
      const hwId = f.get('H');
      const firmware = f.get('F');
      if (version === null) return 'V: version must be 1..3 digits';
      if (!isHex(uid, 6, 32)) return 'U: uid must be 6..32 hex digits';
      if (hwId !== undefined && !isLinkText(hwId)) return 'H: bad hw id';
      if (firmware !== undefined && !isLinkText(firmware)) return 'F: bad firmware';
      const nonce = optionalHex(f.get('N'), NONCE_BYTES);
      const enrolKey = optionalHex(f.get('X'), DEVICE_KEY_BYTES);
      if (nonce === null) return `N: nonce must be ${NONCE_BYTES * 2} hex digits`;
      if (enrolKey === null) return `X: enrolment key must be ${DEVICE_KEY_BYTES * 2} hex digits`;
      return {
        type: 'hello',
        ...base,
        version,
        uid: uid.toUpperCase(),
        ...(hwId === undefined ? {} : { hwId }),
        ...(firmware === undefined ? {} : { firmware }),
        ...(env.account === undefined ? {} : { account: env.account }),
        ...(nonce === undefined ? {} : { nonce }),
        ...(enrolKey === undefined ? {} : { enrolKey }),
      };
    }
    case 'challenge': {
      const nonce = optionalHex(f.get('G'), NONCE_BYTES);
      const enrolKey = optionalHex(f.get('X'), DEVICE_KEY_BYTES);
      if (!nonce) return `G: nonce must be ${NONCE_BYTES * 2} hex digits`;
      if (enrolKey === null) return `X: enrolment key must be ${DEVICE_KEY_BYTES * 2} hex digits`;
      return { type: 'challenge', ...base, nonce, ...(enrolKey === undefined ? {} : { enrolKey }) };
    }
    case 'proof': {
      const proof = optionalHex(f.get('P'), PROOF_BYTES);
      return proof ? { type: 'proof', ...base, proof } : `P: proof must be ${PROOF_BYTES * 2} hex digits`;
    }
    case 'welcome': {
      const version = parseDecimal(f.get('V') ?? '', 3);
      const proof = optionalHex(f.get('P'), PROOF_BYTES);
      if (version === null) return 'V: version must be 1..3 digits';
      if (proof === null) return `P: proof must be ${PROOF_BYTES * 2} hex digits`;
      return { type: 'welcome', ...base, version, ...(proof === undefined ? {} : { proof }) };
    }
    case 'refuse': {
      const reason = f.get('E') ?? '';
      if (!REFUSE_REASONS.includes(reason as RefuseReason)) return 'E: unknown reason';
      return { type: 'refuse', ...base, reason: reason as RefuseReason };
    }
    case 'command': {
      const auth = decodeAuth(f.get('A') ?? '');
      const q = f.get('Q');
      const data = hexToBytes(f.get('D') ?? '?');
      if (!auth) return 'A: must be O, N or M + hex of 1..64 bytes of UTF-8';
      if (q !== '0' && q !== '1') return 'Q: must be 0 or 1';
      if (!data) return 'D: must be even-length hex';
      return { type: 'command', ...base, kind: t.kind, auth, replyWanted: q === '1', data };
    }
    case 'response': {
      const packetNumber = parseDecimal(f.get('N') ?? '', 4);
      const packetCount = parseDecimal(f.get('C') ?? '', 4);
      const status = f.get('S') ?? '';
      const data = hexToBytes(f.get('D') ?? '?');
      if (packetNumber === null) return 'N: packet number must be 1..4 digits';
      if (packetCount === null) return 'C: packet count must be 1..4 digits';
      if (!RESPONSE_STATUSES.includes(status as ResponseStatus)) return 'S: unknown status';
      if (!data) return 'D: must be even-length hex';
      return { type: 'response', ...base, packetNumber, packetCount, status: status as ResponseStatus, data };
    }
    case 'time': {
      const z = f.get('Z');
      const offset = z === undefined ? undefined : parseOffset(z);
      if (offset === null) return 'Z: offset must be +/-0..840 minutes';
      if (env.timestamp === null) return 'VL-TIME without timestamp';
      return { type: 'time', ...base, ...(offset === undefined ? {} : { utcOffsetMinutes: offset }) };
    }
    case 'time-ack':
      return { type: 'time-ack', ...base };
  }
}
