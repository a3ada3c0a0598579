/**
 * DC-09 encryption (SIA DC-09-2013 §5.4.6 cipher block chaining, §5.5.1.7 message data): AES with a 128, 192 or
 * 256-bit key in CBC mode with an all-zero IV over "<pad>|<data>]<extended data><timestamp>", sent as hex after
 * the '['. The pad makes the plaintext a multiple of the 16-byte block; its characters never include '|', '[' or
 * ']' so the first '|' ends it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes as nodeRandomBytes } from 'node:crypto';
import { VigilError } from '../../core/errors.js';

const BLOCK = 16;
const ZERO_IV = Buffer.alloc(BLOCK);
const HEX_RE = /^[0-9A-Fa-f]*$/;
/** Printable ASCII without space, '|', '[' and ']': safe for every decoder that splits on those characters. */
const PAD_ALPHABET = (() => {
  let out = '';
  for (let c = 0x21; c <= 0x7e; c++) if (c !== 0x7c && c !== 0x5b && c !== 0x5d) out += String.fromCharCode(c);
  return out;
})();

export type RandomBytes = (n: number) => Buffer;

function cipherName(key: Buffer): string {
  if (key.length === 16) return 'aes-128-cbc';
  if (key.length === 24) return 'aes-192-cbc';
  if (key.length === 32) return 'aes-256-cbc';
  throw new VigilError('INVALID_SETTINGS', `AES key must be 16, 24 or 32 bytes, got ${key.length}`);
}

/**
 * Key text from settings. 16/24/32 characters are the key bytes themselves; 32/48/64 hex characters are decoded.
 * 32 characters are ambiguous: all-hex means a hex AES-128 key (how panels print their keys), anything else is
 * an AES-256 ASCII key. `form` forces one reading.
 */
export function parseKey(text: string, form: 'auto' | 'ascii' | 'hex' = 'auto'): Buffer {
  const isHex = text.length % 2 === 0 && HEX_RE.test(text);
  const hexOk = isHex && (text.length === 32 || text.length === 48 || text.length === 64);
  const asciiOk = (text.length === 16 || text.length === 24 || text.length === 32) && /^[\x20-\x7e]*$/.test(text);
  if (form !== 'ascii' && hexOk) return Buffer.from(text, 'hex');
  if (form !== 'hex' && asciiOk) return Buffer.from(text, 'latin1');
  throw new VigilError('INVALID_SETTINGS', 'encryption key must be 16, 24 or 32 characters, or 32, 48 or 64 hex digits', [
    `got ${text.length} characters`,
  ]);
}

/**
 * Receiver encryption_password (contract: exactly 6 or 16 characters). 16 characters are an AES-128 key as is.
 * 6 characters are too short for a key; Vigil's rule (no standard covers it): AES-128 key = first 16 bytes of
 * SHA-256 over the password's UTF-8 bytes.
 */
export function receiverPasswordKey(password: string): Buffer {
  const bytes = Buffer.from(password, 'utf8');
  if (bytes.length === 16 && password.length === 16) return bytes;
  if (bytes.length === 6 && password.length === 6) return createHash('sha256').update(bytes).digest().subarray(0, 16);
  throw new VigilError('INVALID_SETTINGS', 'encryption_password must be exactly 6 or 16 ASCII characters');
}

/** Encrypts pad + '|' + plain; returns upper-case hex. Pad: 1..16 random characters (never empty: §5.5.2.1.2). */
export function encryptPayload(plain: string, key: Buffer, randomBytes: RandomBytes = nodeRandomBytes): string {
  const text = Buffer.from(plain, 'latin1');
  const padLength = BLOCK - ((text.length + 1) % BLOCK) || BLOCK;
  const noise = randomBytes(padLength);
  const pad = Buffer.alloc(padLength);
  for (let i = 0; i < padLength; i++) pad[i] = PAD_ALPHABET.charCodeAt((noise[i] ?? 0) % PAD_ALPHABET.length);
  const cipher = createCipheriv(cipherName(key), key, ZERO_IV);
  cipher.setAutoPadding(false);
  const out = Buffer.concat([cipher.update(Buffer.concat([pad, Buffer.from('|'), text])), cipher.final()]);
  return out.toString('hex').toUpperCase();
}

/** Decrypts hex (either case); returns the text after the pad's '|' (latin1, byte for byte) or null. Never throws. */
export function decryptPayload(hex: string, key: Buffer): string | null {
  const plain = decryptBlocks(hex, key);
  if (plain === null) return null;
  const bar = plain.indexOf(0x7c);
  if (bar < 0) return null;
  return plain.subarray(bar + 1).toString('latin1');
}

/** The raw plaintext, pad included; null when the hex or the key length is unusable. Never throws. */
export function decryptBlocks(hex: string, key: Buffer): Buffer | null {
  if (hex.length === 0 || hex.length % (BLOCK * 2) !== 0 || !HEX_RE.test(hex)) return null;
  if (key.length !== 16 && key.length !== 24 && key.length !== 32) return null;
  try {
    const decipher = createDecipheriv(cipherName(key), key, ZERO_IV);
    decipher.setAutoPadding(false);
    return Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]);
  } catch {
    return null;
  }
}
