/**
 * DC-09 encryption (SIA DC-09-2013 §5.4.6 cipher block chaining, §5.5.1.7 message data): AES with a 128, 192 or
 * 256-bit key in CBC mode with an all-zero IV over "<pad>|<data>]<extended data><timestamp>", sent as hex after
 * the '['. The pad makes the plaintext a multiple of the 16-byte block; its characters never include '|', '[' or
 * ']' so the first '|' ends it.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  randomBytes as nodeRandomBytes,
  type Cipher,
  type Decipher,
} from 'node:crypto';
import { VigilError } from '../../core/errors.js';

const BLOCK = 16;
const BAR = Buffer.from('|');
const HEX_RE = /^[0-9A-Fa-f]*$/;
/** Printable ASCII without space, '|', '[' and ']': safe for every decoder that splits on those characters. */
const PAD_ALPHABET = (() => {
  let out = '';
  for (let c = 0x21; c <= 0x7e; c++) if (c !== 0x7c && c !== 0x5b && c !== 0x5d) out += String.fromCharCode(c);
  return out;
})();

export type RandomBytes = (n: number) => Buffer;

/**
 * Long-lived AES-ECB contexts per key, with CBC chaining done here: a new OpenSSL context (and key
 * schedule) per message cost most of an encrypted frame's decode and its ACK's encode (~19 µs of
 * ~20 per frame, bench/dc09-codec.ts). Padding is off and every update() gets whole blocks, so a
 * context never holds data between calls and can serve any number of messages. A memo, not I/O:
 * the codec stays bytes in, bytes out.
 */
interface BlockCipher {
  readonly encrypt: Cipher;
  readonly decrypt: Decipher;
}

const MAX_CACHED_KEYS = 64;
const blockCiphers = new Map<string, BlockCipher>();

function blockCipher(key: Buffer): BlockCipher {
  const id = key.toString('latin1');
  let cached = blockCiphers.get(id);
  if (!cached) {
    const name = cipherName(key).replace('-cbc', '-ecb');
    const encrypt = createCipheriv(name, key, null);
    const decrypt = createDecipheriv(name, key, null);
    encrypt.setAutoPadding(false);
    decrypt.setAutoPadding(false);
    cached = { encrypt, decrypt };
    if (blockCiphers.size >= MAX_CACHED_KEYS) blockCiphers.clear();
    blockCiphers.set(id, cached);
  }
  return cached;
}

/** AES-CBC with the all-zero IV (§5.4.6) over whole blocks: C[i] = E(P[i] ^ C[i-1]). */
function cbcEncrypt(plain: Buffer, key: Buffer): Buffer {
  const { encrypt } = blockCipher(key);
  const out = Buffer.allocUnsafe(plain.length);
  const block = Buffer.allocUnsafe(BLOCK);
  for (let at = 0; at < plain.length; at += BLOCK) {
    for (let i = 0; i < BLOCK; i++) block[i] = plain[at + i]! ^ (at === 0 ? 0 : out[at - BLOCK + i]!);
    encrypt.update(block).copy(out, at);
  }
  return out;
}

/** AES-CBC decryption with the all-zero IV: P[i] = D(C[i]) ^ C[i-1], every block in one call. */
function cbcDecrypt(cipherText: Buffer, key: Buffer): Buffer {
  const plain = blockCipher(key).decrypt.update(cipherText);
  for (let i = plain.length - 1; i >= BLOCK; i--) plain[i]! ^= cipherText[i - BLOCK]!;
  return plain;
}

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
  throw new VigilError(
    'INVALID_SETTINGS',
    'encryption key must be 16, 24 or 32 characters, or 32, 48 or 64 hex digits',
    [`got ${text.length} characters`],
  );
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

/**
 * The pads' randomness, drawn from the CSPRNG 4 KiB at a time: one randomBytes() call per ACK was
 * a tenth of an encrypted frame's codec time. Each byte is handed out once.
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomPoolAt = 0;

function pooledRandomBytes(n: number): Buffer {
  if (randomPoolAt + n > randomPool.length) {
    randomPool = nodeRandomBytes(Math.max(RANDOM_POOL_BYTES, n));
    randomPoolAt = 0;
  }
  const out = randomPool.subarray(randomPoolAt, randomPoolAt + n);
  randomPoolAt += n;
  return out;
}

/** Encrypts pad + '|' + plain; returns upper-case hex. Pad: 1..16 random characters (never empty: §5.5.2.1.2). */
export function encryptPayload(plain: string, key: Buffer, randomBytes: RandomBytes = pooledRandomBytes): string {
  const text = Buffer.from(plain, 'latin1');
  const padLength = BLOCK - ((text.length + 1) % BLOCK) || BLOCK;
  const noise = randomBytes(padLength);
  const pad = Buffer.alloc(padLength);
  for (let i = 0; i < padLength; i++) pad[i] = PAD_ALPHABET.charCodeAt((noise[i] ?? 0) % PAD_ALPHABET.length);
  return cbcEncrypt(Buffer.concat([pad, BAR, text]), key)
    .toString('hex')
    .toUpperCase();
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
    return cbcDecrypt(Buffer.from(hex, 'hex'), key);
  } catch {
    return null;
  }
}
