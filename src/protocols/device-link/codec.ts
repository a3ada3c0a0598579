/**
 * Device-link codec (docs/device-link.md §3): typed messages <-> complete DC-09 frames.
 * Encoders validate their input and throw VigilError('FRAME_INVALID') on values the wire
 * cannot carry (a caller bug); decodeLinkBody never throws.
 */
import { VigilError } from '../../core/errors.js';
import type { RandomBytes } from '../dc09/crypto.js';
import { encodeFrame } from '../dc09/frame.js';
import { buildBody, splitBody, type LinkKey } from './envelope.js';
import { decodeFields, encodeFields, tokenOf, typeOfToken } from './message-fields.js';
import type {
  ChallengeMessage,
  CommandMessage,
  DecodedLinkMessage,
  HelloMessage,
  LinkDecodeError,
  LinkMessage,
  ProofMessage,
  RefuseMessage,
  ResponseMessage,
  TimeAckMessage,
  TimeMessage,
  WelcomeMessage,
} from './messages.js';

export { isLinkBody, type LinkKey } from './envelope.js';
export { SessionKey } from './session-cipher.js';

export interface EncodeOptions {
  /**
   * The receiver's AES key (DC-09 CBC) or the connection's SessionKey (AES-GCM): the message is sent
   * encrypted (`"*VL-..."`). null/absent: plain.
   */
  readonly key?: LinkKey;
  /** Pad source for encryption; tests pass a fixed one to get exact bytes. */
  readonly randomBytes?: RandomBytes;
}

/** Types whose timestamp is mandatory even in plain text: their point is the time (§3). */
const NEEDS_TIMESTAMP: ReadonlySet<LinkMessage['type']> = new Set(['challenge', 'welcome', 'refuse', 'time']);

export function encodeLinkMessage(message: LinkMessage, options: EncodeOptions = {}): Buffer {
  const key = options.key ?? null;
  if (!Number.isInteger(message.seq) || message.seq < 0 || message.seq > 9999) {
    throw new VigilError('FRAME_INVALID', `device-link sequence must be 0..9999, got ${message.seq}`);
  }
  if (message.timestamp === null && (key || NEEDS_TIMESTAMP.has(message.type))) {
    throw new VigilError(
      'FRAME_INVALID',
      `device-link ${message.type} needs a timestamp${key ? ' when encrypted' : ''}`,
    );
  }
  const block = encodeFields(message);
  const account = message.type === 'hello' ? message.account?.toUpperCase() : undefined;
  const body = buildBody(
    { token: tokenOf(message), seq: message.seq, block, timestamp: message.timestamp, ...(account ? { account } : {}) },
    key,
    options.randomBytes,
  );
  return encodeFrame(body);
}

type Fields<T extends LinkMessage> = Omit<T, 'type'>;

export const encodeHello = (m: Fields<HelloMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'hello', ...m }, o);
export const encodeChallenge = (m: Fields<ChallengeMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'challenge', ...m }, o);
export const encodeProof = (m: Fields<ProofMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'proof', ...m }, o);
export const encodeWelcome = (m: Fields<WelcomeMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'welcome', ...m }, o);
export const encodeRefuse = (m: Fields<RefuseMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'refuse', ...m }, o);
/** VL-CMD (kind `control`) or VL-CFG (kind `config`). */
export const encodeCommand = (m: Fields<CommandMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'command', ...m }, o);
export const encodeResponse = (m: Fields<ResponseMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'response', ...m }, o);
export const encodeTime = (m: Fields<TimeMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'time', ...m }, o);
export const encodeTimeAck = (m: Fields<TimeAckMessage>, o?: EncodeOptions): Buffer =>
  encodeLinkMessage({ type: 'time-ack', ...m }, o);

/**
 * A frame body (from Dc09Framer) -> message. `key` is the receiver's key, or the connection's
 * SessionKey once the link is welcomed; an encrypted body with no key is `no-key`, one that does
 * not decrypt (or whose GCM tag fails) is `crypto`. Never throws.
 */
export function decodeLinkBody(body: Buffer, key: LinkKey): DecodedLinkMessage | LinkDecodeError {
  try {
    const envelope = splitBody(body, key);
    if ('error' in envelope) return envelope;
    const known = { token: envelope.token, seq: envelope.seq, encrypted: envelope.encrypted };
    const type = typeOfToken(envelope.token);
    if (!type) return { error: 'unknown-type', detail: `unknown token "${envelope.token}"`, ...known };
    if (envelope.timestamp === null && NEEDS_TIMESTAMP.has(type.type)) {
      return { error: 'format', detail: `${envelope.token} without timestamp`, ...known };
    }
    const decoded = decodeFields(type, envelope);
    if (typeof decoded === 'string') return { error: 'format', detail: decoded, ...known };
    return decoded;
  } catch (err) {
    // Belt and braces: a decoder bug must not take a connection down (docs/device-link.md §2.5).
    return { error: 'format', detail: `decoder failure: ${err instanceof Error ? err.message : String(err)}` };
  }
}
