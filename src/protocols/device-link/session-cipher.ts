/**
 * The session envelope of a version-2 link (docs/device-link.md §2.6): after the WELCOME every
 * link message of the connection is sealed with AES-256-GCM under the connection's session key
 * (derived from the device key and both HELLO nonces, link-auth.ts). The part after '[' is
 *   hex( IV (12 bytes) || ciphertext || tag (16 bytes) )
 * over the plaintext `<fields>]_<timestamp>`, and the clear part up to and including '[' is the
 * additional authenticated data, so token, sequence and header cannot be changed or swapped
 * between messages. Pure (randomness injectable); open() never throws.
 */
import { createCipheriv, createDecipheriv, randomBytes as nodeRandomBytes } from 'node:crypto';
import { VigilError } from '../../core/errors.js';
import type { RandomBytes } from '../dc09/crypto.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEX_RE = /^[0-9A-Fa-f]*$/;

/** A connection's session key: marks a link whose messages use the session envelope, not DC-09's CBC. */
export class SessionKey {
  readonly bytes: Buffer;

  constructor(bytes: Buffer) {
    if (bytes.length !== 32) throw new VigilError('INTERNAL', `a session key is 32 bytes, got ${bytes.length}`);
    this.bytes = bytes;
  }
}

/** Seals `plain` (latin1) with `aad`; upper-case hex of IV || ciphertext || tag. */
export function sealSession(
  plain: string,
  aad: string,
  key: SessionKey,
  randomBytes: RandomBytes = nodeRandomBytes,
): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(aad, 'latin1'));
  const body = Buffer.concat([cipher.update(Buffer.from(plain, 'latin1')), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('hex').toUpperCase();
}

/** The plaintext (latin1), or null when the hex is malformed or the tag does not verify. */
export function openSession(hex: string, aad: string, key: SessionKey): string | null {
  if (hex.length % 2 !== 0 || hex.length < (IV_BYTES + TAG_BYTES) * 2 || !HEX_RE.test(hex)) return null;
  const bytes = Buffer.from(hex, 'hex');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad, 'latin1'));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plain.toString('latin1');
  } catch {
    return null;
  }
}
