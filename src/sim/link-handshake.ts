/**
 * The device side of the version-2 HELLO handshake (docs/device-link.md §4.1, §4.4), as the
 * reference device does it: VL-HELLO with a fresh nonce (and a one-time X25519 key when the device
 * has no key yet), VL-PROOF to the gateway's VL-CHAL, and a WELCOME accepted only when it opens
 * with the session key and carries the gateway's proof. An enrolled key is kept in the keyring only
 * then, so a refused or unfinished enrolment leaves the device as it was.
 */
import { randomBytes } from 'node:crypto';
import {
  decodeLinkBody,
  encodeHello,
  encodeProof,
  type LinkKey,
  type SessionKey,
} from '../protocols/device-link/codec.js';
import {
  deriveSessionKey,
  deviceProof,
  enrolmentKeyPair,
  gatewayProof,
  handshakeKey,
  proofsMatch,
  type EnrolmentKeyPair,
  type HandshakeTranscript,
} from '../protocols/device-link/link-auth.js';
import {
  LINK_VERSION,
  NONCE_BYTES,
  type ChallengeMessage,
  type DecodedLinkMessage,
  type LinkDecodeError,
} from '../protocols/device-link/messages.js';

/** Device keys by UID: what a fleet of simulated devices holds (sim-keyring.ts persists it). */
export type DeviceKeyring = Map<string, Buffer>;

export interface HelloIdentity {
  readonly seq: number;
  readonly uid: string;
  readonly account: string;
  /** Optional in the HELLO; '' leaves the field out. */
  readonly hwId: string;
  readonly firmware: string;
}

export class DeviceHandshake {
  private readonly identity: HelloIdentity;
  private readonly keyring: DeviceKeyring;
  private deviceNonce = '';
  private enrolment: EnrolmentKeyPair | null = null;
  private transcript: HandshakeTranscript | null = null;
  private candidateKey: Buffer | null = null;
  private candidateSession: SessionKey | null = null;
  /** The connection's session key once the WELCOME checked out. */
  sessionKey: SessionKey | null = null;

  constructor(identity: HelloIdentity, keyring: DeviceKeyring) {
    this.identity = identity;
    this.keyring = keyring;
  }

  /** VL-HELLO (encrypted with the receiver's DC-09 key when the device has one). */
  hello(now: number, receiverKey: Buffer | null): Buffer {
    const h = this.identity;
    this.sessionKey = null;
    this.transcript = null;
    this.deviceNonce = randomBytes(NONCE_BYTES).toString('hex').toUpperCase();
    this.enrolment = this.keyring.has(h.uid) ? null : enrolmentKeyPair();
    return encodeHello(
      {
        seq: h.seq,
        timestamp: now,
        version: LINK_VERSION,
        uid: h.uid,
        ...(h.hwId ? { hwId: h.hwId } : {}),
        ...(h.firmware ? { firmware: h.firmware } : {}),
        ...(h.account ? { account: h.account } : {}),
        nonce: this.deviceNonce,
        ...(this.enrolment ? { enrolKey: this.enrolment.publicHex } : {}),
      },
      { key: receiverKey },
    );
  }

  /** The key to decode the next link message with: the session key once welcomed or while a WELCOME is due. */
  decodeKey(receiverKey: Buffer | null): LinkKey {
    return this.sessionKey ?? receiverKey;
  }

  /** Decodes a link body: a WELCOME opens only with the candidate session key. */
  decode(body: Buffer, receiverKey: Buffer | null): DecodedLinkMessage | LinkDecodeError {
    if (!this.sessionKey && this.candidateSession) {
      const welcome = decodeLinkBody(body, this.candidateSession);
      if (!('error' in welcome)) return welcome;
    }
    return decodeLinkBody(body, this.decodeKey(receiverKey));
  }

  /** VL-PROOF for a VL-CHAL, or null when the device cannot prove (no key, and the gateway did not enrol it). */
  proof(challenge: ChallengeMessage, now: number): Buffer | null {
    const h = this.identity;
    if (challenge.seq !== h.seq || this.deviceNonce === '') return null;
    const base = {
      uid: h.uid,
      account: h.account.toUpperCase(),
      deviceNonce: this.deviceNonce,
      gatewayNonce: challenge.nonce,
    };
    const enrolment =
      this.enrolment && challenge.enrolKey !== undefined
        ? { side: 'device' as const, own: this.enrolment, peerPublicHex: challenge.enrolKey }
        : null;
    const keyed = handshakeKey(base, this.keyring.get(h.uid) ?? null, enrolment);
    if (!keyed) return null;
    const { transcript, deviceKey } = keyed;
    this.transcript = transcript;
    this.candidateKey = deviceKey;
    this.candidateSession = deriveSessionKey(deviceKey, transcript);
    return encodeProof({ seq: h.seq, timestamp: now, proof: deviceProof(deviceKey, transcript) });
  }

  /** A decoded WELCOME: true when it proves the gateway holds the key (then the link is up). */
  welcomed(message: DecodedLinkMessage): boolean {
    if (
      message.type !== 'welcome' ||
      !message.encrypted ||
      !this.transcript ||
      !this.candidateKey ||
      message.proof === undefined
    )
      return false;
    if (!proofsMatch(gatewayProof(this.candidateKey, this.transcript), message.proof)) return false;
    if (this.enrolment) this.keyring.set(this.identity.uid, this.candidateKey);
    this.sessionKey = this.candidateSession;
    this.enrolment = null;
    this.candidateSession = null;
    return true;
  }
}
