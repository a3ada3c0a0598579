/** Checks of JSON values the contract's request parsers share (device-request.ts, oid-override-request.ts). */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const HEX = /^[0-9A-Fa-f]+$/;

export function isHex(value: string): boolean {
  return HEX.test(value);
}
