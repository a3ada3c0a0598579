/**
 * The gateway's side of the HELLO handshake (docs/device-link.md §4.1), decided without I/O like
 * the DC-09 frame handler: answerHello turns a VL-HELLO into a VL-CHAL (or a refusal), answerProof
 * turns the device's VL-PROOF into a VL-WELCOME sealed with the new session key (or a refusal).
 * Nothing is registered before the proof: the transport stores the device and attaches its link
 * only on `welcome`, so a HELLO that fails the proof never displaces a link or changes an object.
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { checkWindow } from '../dc09/timestamp.js';
import { encodeChallenge, encodeRefuse, encodeWelcome } from './codec.js';
import {
  deriveSessionKey,
  deviceProof,
  enrolmentKeyPair,
  gatewayProof,
  handshakeKey,
  proofsMatch,
  type EnrolmentKeyPair,
  type HandshakeTranscript,
} from './link-auth.js';
import {
  LINK_VERSION,
  NONCE_BYTES,
  type DecodedLinkMessage,
  type HelloMessage,
  type LinkDecodeError,
  type RefuseReason,
} from './messages.js';
import type { SessionKey } from './session-cipher.js';

/** How long the gateway waits for the VL-PROOF after its VL-CHAL. */
export const PROOF_TIMEOUT_MS = 10_000;

/** What the gateway holds about a UID when its HELLO arrives. */
export interface DeviceKeyState {
  /** The device key on record, null when the UID has none. */
  readonly key: Buffer | null;
  /** The UID may enrol now (receiver open to unknown UIDs, or an installer's enrolment window). */
  readonly mayEnrol: boolean;
}

/** Why a HELLO or a proof was refused as an identity problem (journaled, docs/device-link.md §4.5). */
export type IdentityConflictReason =
  /** The proof did not match the device key on record. */
  | 'bad_proof'
  /** No key on record and enrolment not allowed for the UID. */
  | 'not_enrolled'
  /** The HELLO asked to enrol a UID that has a key already. */
  | 'already_enrolled'
  /** A proven device's new connection replaced a live link from another address. */
  | 'new_address';

export interface HelloContext {
  readonly now: number;
  /** The receiver's key; null when the receiver has none. */
  readonly key: Buffer | null;
  /** The receiver accepts encrypted traffic only. */
  readonly requireEncryption: boolean;
  /** DC-09 acceptance window for the timestamp of an encrypted HELLO (defaults 40 s / 20 s). */
  readonly windowPastS: number;
  readonly windowFutureS: number;
  /** What the gateway holds about the UID (store read). */
  readonly deviceKey: (uid: string) => DeviceKeyState;
  /** Nonces; tests pass a fixed source. */
  readonly randomBytes?: (n: number) => Buffer;
  /** The gateway's one-time enrolment key pair; tests pass a fixed one. */
  readonly enrolmentKeyPair?: () => EnrolmentKeyPair;
}

/** A HELLO that got its challenge and waits for the proof. */
export interface PendingHello {
  readonly hello: HelloMessage & { readonly encrypted: boolean };
  readonly transcript: HandshakeTranscript;
  /** The key the proof must be made with: the one on record, or the one this enrolment derived. */
  readonly deviceKey: Buffer;
  /** True when this handshake enrols the device (the key is stored once the HELLO is registered). */
  readonly enrolling: boolean;
  readonly expiresAt: number;
}

type Refusal = {
  readonly action: 'refuse';
  readonly reply: Buffer;
  readonly reason: RefuseReason;
  /** Set when the refusal is an identity conflict to journal. */
  readonly conflict?: { readonly uid: string; readonly reason: IdentityConflictReason };
};

export type HelloDecision =
  | { readonly action: 'challenge'; readonly reply: Buffer; readonly pending: PendingHello }
  | Refusal
  /** Not a HELLO, or one too broken to answer (no readable sequence). */
  | { readonly action: 'ignore' };

export type ProofDecision =
  | {
      readonly action: 'welcome';
      readonly reply: Buffer;
      readonly hello: HelloMessage & { readonly encrypted: boolean };
      /** The connection's session key: every later link message both ways is sealed with it. */
      readonly sessionKey: SessionKey;
      /** The key to store for the UID when this handshake enrolled it; null otherwise. */
      readonly enrolledKey: Buffer | null;
      /** The version both sides speak from now on. */
      readonly version: number;
    }
  | Refusal
  /** Not the proof of the pending HELLO (another sequence, another message). */
  | { readonly action: 'ignore' };

function refuse(seq: number, reason: RefuseReason, now: number, conflict?: Refusal['conflict']): Refusal {
  // Refusals go in clear: the device may hold a wrong key, and they carry nothing secret
  // (like the DC-09 NAK, SIA DC-09 §5.5.3.2, never encrypted, whose timestamp the transmitter adopts).
  return {
    action: 'refuse',
    reply: encodeRefuse({ seq, timestamp: now, reason }),
    reason,
    ...(conflict ? { conflict } : {}),
  };
}

export function answerHello(input: DecodedLinkMessage | LinkDecodeError, ctx: HelloContext): HelloDecision {
  if ('error' in input) {
    if (input.token !== 'VL-HELLO' || input.seq === undefined) return { action: 'ignore' };
    const reason: RefuseReason = input.error === 'no-key' || input.error === 'crypto' ? 'KEY' : 'FMT';
    return refuse(input.seq, reason, ctx.now);
  }
  if (input.type !== 'hello') return { action: 'ignore' };
  // Version 1 had no device proof: a version-1 device keeps its DC-09 traffic but gets no link (§4.1).
  if (input.version < LINK_VERSION) return refuse(input.seq, 'VER', ctx.now);
  if (!input.encrypted && ctx.requireEncryption) return refuse(input.seq, 'ENC', ctx.now);
  if (input.encrypted) {
    // An encrypted HELLO is replayable by anyone who recorded it; the time window bounds that,
    // and the refusal's timestamp lets the device correct its clock and retry at once.
    const window = { windowPastS: ctx.windowPastS, windowFutureS: ctx.windowFutureS, acceptLocalTime: false };
    if (input.timestamp === null || !checkWindow(input.timestamp, ctx.now, window).ok) {
      return refuse(input.seq, 'TIME', ctx.now);
    }
  }
  if (input.nonce === undefined) return refuse(input.seq, 'FMT', ctx.now);
  const state = ctx.deviceKey(input.uid);
  const gatewayNonce = (ctx.randomBytes ?? nodeRandomBytes)(NONCE_BYTES).toString('hex').toUpperCase();
  const base = { uid: input.uid, account: input.account ?? '', deviceNonce: input.nonce, gatewayNonce };
  const expiresAt = ctx.now + PROOF_TIMEOUT_MS;
  if (state.key) {
    // A UID with a key is never enrolled again without the installer's reset (§4.4).
    if (input.enrolKey !== undefined)
      return refuse(input.seq, 'AUTH', ctx.now, { uid: input.uid, reason: 'already_enrolled' });
    const reply = encodeChallenge({ seq: input.seq, timestamp: ctx.now, nonce: gatewayNonce });
    return {
      action: 'challenge',
      reply,
      pending: { hello: input, transcript: base, deviceKey: state.key, enrolling: false, expiresAt },
    };
  }
  if (!state.mayEnrol || input.enrolKey === undefined) {
    return refuse(input.seq, 'AUTH', ctx.now, { uid: input.uid, reason: 'not_enrolled' });
  }
  const own = (ctx.enrolmentKeyPair ?? enrolmentKeyPair)();
  const enrolled = handshakeKey(base, null, { side: 'gateway', own, peerPublicHex: input.enrolKey });
  if (!enrolled) return refuse(input.seq, 'FMT', ctx.now);
  const reply = encodeChallenge({ seq: input.seq, timestamp: ctx.now, nonce: gatewayNonce, enrolKey: own.publicHex });
  return { action: 'challenge', reply, pending: { hello: input, ...enrolled, enrolling: true, expiresAt } };
}

/** The device's VL-PROOF to a pending HELLO. `now` is the gateway's clock. */
export function answerProof(
  input: DecodedLinkMessage | LinkDecodeError,
  pending: PendingHello,
  now: number,
): ProofDecision {
  const seq = pending.hello.seq;
  if ('error' in input) {
    if (input.token !== 'VL-PROOF' || input.seq !== seq) return { action: 'ignore' };
    return refuse(seq, 'FMT', now);
  }
  if (input.type !== 'proof' || input.seq !== seq) return { action: 'ignore' };
  if (now > pending.expiresAt) return refuse(seq, 'AUTH', now);
  const uid = pending.hello.uid;
  if (!proofsMatch(deviceProof(pending.deviceKey, pending.transcript), input.proof)) {
    return refuse(seq, 'AUTH', now, { uid, reason: 'bad_proof' });
  }
  const sessionKey = deriveSessionKey(pending.deviceKey, pending.transcript);
  const version = Math.min(pending.hello.version, LINK_VERSION);
  const proof = gatewayProof(pending.deviceKey, pending.transcript);
  const reply = encodeWelcome({ seq, timestamp: now, version, proof }, { key: sessionKey });
  return {
    action: 'welcome',
    reply,
    hello: pending.hello,
    sessionKey,
    enrolledKey: pending.enrolling ? pending.deviceKey : null,
    version,
  };
}
