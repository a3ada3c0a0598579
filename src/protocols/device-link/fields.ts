/**
 * Text-level pieces of a device-link body: the `|`-separated field block and the value checks
 * (timestamps are DC-09's, src/protocols/dc09/timestamp.ts). Pure; never throws on input it parses.
 */

/**
 * Splits `A1|B2|Cxyz` into key -> value (the key is the first character). An empty block has
 * no fields. Returns null for an empty field or a key seen twice; unknown keys are kept so the
 * caller can ignore them (forward compatibility, docs/device-link.md §2.3).
 */
export function parseFieldBlock(block: string): Map<string, string> | null {
  const fields = new Map<string, string>();
  if (block === '') return fields;
  for (const part of block.split('|')) {
    if (part === '') return null;
    const key = part[0] as string;
    if (fields.has(key)) return null;
    fields.set(key, part.slice(1));
  }
  return fields;
}

/** Joins fields in the given order, skipping undefined values. */
export function buildFieldBlock(fields: ReadonlyArray<readonly [string, string | undefined]>): string {
  return fields
    .filter((f): f is readonly [string, string] => f[1] !== undefined)
    .map(([key, value]) => key + value)
    .join('|');
}

const HEX_RE = /^[0-9A-Fa-f]*$/;
const TEXT_RE = /^[0-9A-Za-z._:+/-]{1,32}$/;

export function isHex(text: string, minDigits: number, maxDigits: number): boolean {
  return text.length >= minDigits && text.length <= maxDigits && HEX_RE.test(text);
}

/** Even-length hex (either case) -> bytes; null otherwise. */
export function hexToBytes(text: string): Buffer | null {
  if (text.length % 2 !== 0 || !HEX_RE.test(text)) return null;
  return Buffer.from(text, 'hex');
}

export function bytesToHex(data: Uint8Array): string {
  return Buffer.from(data).toString('hex').toUpperCase();
}

/** Hardware id and firmware text: 1..32 characters that never clash with the framing. */
export function isLinkText(text: string): boolean {
  return TEXT_RE.test(text);
}

/** Unsigned decimal of 1..maxDigits digits -> number; null otherwise. */
export function parseDecimal(text: string, maxDigits: number): number | null {
  if (text.length < 1 || text.length > maxDigits || !/^\d+$/.test(text)) return null;
  return Number(text);
}

/** `+60`, `-300`, `+0`: minutes -840..+840 (UTC-14 .. UTC+14); null otherwise. */
export function parseOffset(text: string): number | null {
  const m = /^([+-])(\d{1,3})$/.exec(text);
  if (!m) return null;
  const value = Number(m[2]) * (m[1] === '-' ? -1 : 1);
  return Math.abs(value) <= 840 ? value : null;
}

export function formatOffset(minutes: number): string {
  return (minutes < 0 ? '-' : '+') + String(Math.abs(minutes));
}
