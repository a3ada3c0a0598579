/**
 * The cryptography of a version-2 HELLO (docs/device-link.md §4.1, §4.4), node:crypto only:
 *   proof        HMAC-SHA256(device key, transcript), compared in constant time;
 *   session key  HKDF-SHA256(device key, salt = device nonce || gateway nonce, info = "VL2 session <UID>");
 *   enrolment    X25519 between the device's and the gateway's one-time keys, then
 *                device key = HKDF-SHA256(shared secret, salt = both nonces, info = "VL2 enrol <UID>").
 * The transcript binds everything the gateway acts on (UID, account, both nonces, both enrolment
 * keys) and who is proving (`D` device, `G` gateway), so a proof cannot be moved to another
 * HELLO, another connection or the other direction.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { SessionKey } from './session-cipher.js';
import { DEVICE_KEY_BYTES } from './messages.js';

/** What both sides saw of one handshake; hex values upper case as on the wire. */
export interface HandshakeTranscript {
  readonly uid: string;
  /** The HELLO's `#acct` header, '' when it had none. */
  readonly account: string;
  readonly deviceNonce: string;
  readonly gatewayNonce: string;
  /** The X25519 public keys of an enrolment, absent otherwise. */
  readonly deviceEnrolKey?: string;
  readonly gatewayEnrolKey?: string;
}

function transcriptText(role: 'D' | 'G', t: HandshakeTranscript): string {
  return [
    'VL2',
    role,
    t.uid,
    t.account,
    t.deviceNonce,
    t.gatewayNonce,
    t.deviceEnrolKey ?? '',
    t.gatewayEnrolKey ?? '',
  ].join('|');
}

function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'latin1').digest('hex').toUpperCase();
}

/** The device's proof (VL-PROOF `P`). */
export function deviceProof(deviceKey: Buffer, t: HandshakeTranscript): string {
  return hmacHex(deviceKey, transcriptText('D', t));
}

/** The gateway's proof (VL-WELCOME `P`): the device learns it reached the gateway holding its key. */
export function gatewayProof(deviceKey: Buffer, t: HandshakeTranscript): string {
  return hmacHex(deviceKey, transcriptText('G', t));
}

/** Constant-time comparison of two hex proofs (timingSafeEqual on equal-length bytes). */
export function proofsMatch(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(given, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}

function salt(t: HandshakeTranscript): Buffer {
  return Buffer.concat([Buffer.from(t.deviceNonce, 'hex'), Buffer.from(t.gatewayNonce, 'hex')]);
}

/** The connection's session key: fresh for every handshake because both nonces are. */
export function deriveSessionKey(deviceKey: Buffer, t: HandshakeTranscript): SessionKey {
  return new SessionKey(Buffer.from(hkdfSync('sha256', deviceKey, salt(t), `VL2 session ${t.uid}`, 32)));
}

// RFC 8410 SubjectPublicKeyInfo / PKCS#8 prefixes of a raw 32-byte X25519 key.
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

export interface EnrolmentKeyPair {
  /** 64 upper-case hex digits, for the `X` field. */
  readonly publicHex: string;
  readonly privateKey: KeyObject;
}

/** A one-time X25519 key pair for one enrolment. */
export function enrolmentKeyPair(): EnrolmentKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);
  return { publicHex: raw.toString('hex').toUpperCase(), privateKey };
}

/** A key pair from a fixed 32-byte private key (tests and the documented example). */
export function enrolmentKeyPairFrom(privateBytes: Buffer): EnrolmentKeyPair {
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, privateBytes]),
    format: 'der',
    type: 'pkcs8',
  });
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);
  return { publicHex: raw.toString('hex').toUpperCase(), privateKey };
}

/**
 * The device key both sides derive from an enrolment; null when the peer's public key is not a
 * usable X25519 key (a low-order point gives an all-zero secret, RFC 7748 §6.1).
 */
export function enrolledDeviceKey(own: EnrolmentKeyPair, peerPublicHex: string, t: HandshakeTranscript): Buffer | null {
  try {
    const peer = createPublicKey({
      key: Buffer.concat([X25519_SPKI_PREFIX, Buffer.from(peerPublicHex, 'hex')]),
      format: 'der',
      type: 'spki',
    });
    const secret = diffieHellman({ privateKey: own.privateKey, publicKey: peer });
    if (secret.every((b) => b === 0)) return null;
    return Buffer.from(hkdfSync('sha256', secret, salt(t), `VL2 enrol ${t.uid}`, DEVICE_KEY_BYTES));
  } catch {
    return null;
  }
}

/** One side's part in an enrolment: its own one-time key pair and the other side's public key (`X`). */
export interface Enrolment {
  readonly side: 'device' | 'gateway';
  readonly own: EnrolmentKeyPair;
  readonly peerPublicHex: string;
}

/**
 * The transcript of a handshake and the device key its proofs are made with, the same on both sides:
 * without an enrolment the key on record and the bare transcript; with one, the transcript binds both
 * one-time keys (the device's first) and the key is the one they derive. Null when there is no key on
 * record or the peer's enrolment key is unusable.
 */
export function handshakeKey(
  base: HandshakeTranscript,
  key: Buffer | null,
  enrolment: Enrolment | null,
): { readonly transcript: HandshakeTranscript; readonly deviceKey: Buffer } | null {
  if (!enrolment) return key ? { transcript: base, deviceKey: key } : null;
  const [device, gateway] =
    enrolment.side === 'device'
      ? [enrolment.own.publicHex, enrolment.peerPublicHex]
      : [enrolment.peerPublicHex, enrolment.own.publicHex];
  const transcript: HandshakeTranscript = { ...base, deviceEnrolKey: device, gatewayEnrolKey: gateway };
  const deviceKey = enrolledDeviceKey(enrolment.own, enrolment.peerPublicHex, transcript);
  return deviceKey ? { transcript, deviceKey } : null;
}
