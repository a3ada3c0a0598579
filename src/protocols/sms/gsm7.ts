/**
 * The GSM 7-bit default alphabet and its extension table (3GPP TS 23.038 §6.2.1, §6.2.1.1) and
 * septet packing (TS 23.038 §6.1.2.1.1). Pure: septets in, text out, and back.
 */

/** TS 23.038 §6.2.1: index = septet value. 0x1B is the escape to the extension table. */
const DEFAULT_ALPHABET =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/** TS 23.038 §6.2.1.1: the characters reached by ESC + septet. */
const EXTENSION: ReadonlyMap<number, string> = new Map([
  [0x0a, '\f'],
  [0x14, '^'],
  [0x28, '{'],
  [0x29, '}'],
  [0x2f, '\\'],
  [0x3c, '['],
  [0x3d, '~'],
  [0x3e, ']'],
  [0x40, '|'],
  [0x65, '€'],
]);

export const ESCAPE = 0x1b;

const ENCODE_DEFAULT = new Map<string, number>();
for (let i = 0; i < DEFAULT_ALPHABET.length; i++) if (i !== ESCAPE) ENCODE_DEFAULT.set(DEFAULT_ALPHABET[i]!, i);
const ENCODE_EXTENSION = new Map<string, number>();
for (const [septet, char] of EXTENSION) ENCODE_EXTENSION.set(char, septet);

if (DEFAULT_ALPHABET.length !== 128) throw new Error('GSM 7-bit table must have 128 entries');

/**
 * `count` septets from `bytes`, skipping the first `skip` septets (the ones a user data header
 * and its fill bits occupy, TS 23.040 §9.2.3.24). Septets are packed LSB first.
 */
export function unpackSeptets(bytes: Uint8Array, count: number, skip = 0): number[] {
  const out: number[] = [];
  for (let i = skip; i < count; i++) {
    const bit = i * 7;
    const byte = bit >> 3;
    const shift = bit & 7;
    if (byte >= bytes.length) break;
    let value = bytes[byte]! >> shift;
    if (shift > 1 && byte + 1 < bytes.length) value |= bytes[byte + 1]! << (8 - shift);
    out.push(value & 0x7f);
  }
  return out;
}

/** Septets -> text; ESC + unknown septet shows the default character (TS 23.038 §6.2.1.1 note). */
export function decodeSeptets(septets: readonly number[]): string {
  let text = '';
  for (let i = 0; i < septets.length; i++) {
    const s = septets[i]!;
    if (s === ESCAPE && i + 1 < septets.length) {
      const next = septets[++i]!;
      text += EXTENSION.get(next) ?? (next === ESCAPE ? ' ' : DEFAULT_ALPHABET[next]!);
    } else if (s === ESCAPE) {
      text += ' ';
    } else {
      text += DEFAULT_ALPHABET[s]!;
    }
  }
  return text;
}

/** Text -> septets, or null when a character is in neither table (send it as UCS-2 then). */
export function encodeSeptets(text: string): number[] | null {
  const out: number[] = [];
  for (const char of text) {
    const plain = ENCODE_DEFAULT.get(char);
    if (plain !== undefined) {
      out.push(plain);
      continue;
    }
    const ext = ENCODE_EXTENSION.get(char);
    if (ext === undefined) return null;
    out.push(ESCAPE, ext);
  }
  return out;
}

/** Packs septets LSB first after `skipBits` zero bits (the UDH fill bits). */
export function packSeptets(septets: readonly number[], skipBits = 0): Uint8Array {
  const totalBits = skipBits + septets.length * 7;
  const out = new Uint8Array(Math.ceil(totalBits / 8));
  for (let i = 0; i < septets.length; i++) {
    const bit = skipBits + i * 7;
    const byte = bit >> 3;
    const shift = bit & 7;
    out[byte]! |= (septets[i]! << shift) & 0xff;
    if (shift > 1) out[byte + 1]! |= septets[i]! >> (8 - shift);
  }
  return out;
}
