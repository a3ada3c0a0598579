/**
 * Field-level schemas shared by every settings section. Every schema carries its own message,
 * written so that it never repeats the submitted value (secrets must not leak into error text,
 * and valibot's default messages quote the input).
 */
import { isIP } from 'node:net';
import * as v from 'valibot';

/** What publicView() shows instead of a secret; sent back in an update it means "keep the stored value". */
export const SECRET_MASK = '********';

const INTEGER = 'must be an integer';

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An integer in [min, max]; 1.5, "80", true and null are all refused with the same line. */
export function int(min: number, max: number, rangeMessage = `must be between ${min} and ${max}`) {
  return v.pipe(v.number(INTEGER), v.integer(INTEGER), v.minValue(min, rangeMessage), v.maxValue(max, rangeMessage));
}

export const port = int(1, 65535);

/** Contract: ids are "unique, non-zero". Vigil: positive and within a signed 32-bit integer (decision, docs/settings.md). */
export const ID_MAX = 2_147_483_647;
export const id = int(1, ID_MAX, `must be an integer between 1 and ${ID_MAX}`);

export const bool = v.boolean('must be true or false');
export const str = v.string('must be a string');

/**
 * Non-empty after trimming (a name of blanks is as useless as an empty one) and free of control
 * characters (they would corrupt log lines and outputs; the store also reserves them in logins).
 */
/** C0 controls and DEL: never part of a name, a path or an account (they would forge log lines). */
export const CONTROL_CHARACTERS = /[\x00-\x1f\x7f]/;

export const nonEmpty = v.pipe(
  str,
  v.check((s) => s.trim().length > 0, 'must not be empty'),
  v.check((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters'),
);

/** Passwords keep their blanks (they are significant) but may not be empty. */
export const password = v.pipe(str, v.minLength(1, 'must not be empty'));

export function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

/**
 * A fixed-length secret. Lengths count characters; only printable ASCII is accepted so that a
 * character is a byte (the receivers and outputs turn these into AES keys).
 */
export function fixedSecret(lengths: readonly number[]) {
  const allowed =
    lengths.length === 1 ? `exactly ${lengths[0]}` : `exactly ${lengths.slice(0, -1).join(', ')} or ${lengths.at(-1)}`;
  return v.pipe(
    str,
    v.check(isPrintableAscii, 'must contain only printable ASCII characters'),
    v.check((s) => lengths.includes(s.length), `must be ${allowed} characters`),
  );
}

/** Receiver encryption password (contract: "exactly 6 or exactly 16 characters"). */
export const receiverPassword = fixedSecret([6, 16]);

/**
 * Contact ID style hex fields: 1..3 hex digits, either case, no "0x" prefix (decision:
 * a prefix is refused so that "0x1" and "1" cannot both name zone 1 in a stored list).
 */
export function hex(max: number) {
  const limit = `0x${max.toString(16).toUpperCase()}`;
  return v.pipe(
    str,
    v.regex(/^[0-9A-Fa-f]{1,3}$/, 'must be 1 to 3 hex digits (0-9, A-F) without a 0x prefix'),
    v.check((s) => parseInt(s, 16) <= max, `must be at most ${limit}`),
  );
}

export const ipAddress = v.pipe(
  str,
  v.check((s) => isIP(s) !== 0, 'must be an IPv4 or IPv6 address'),
);

export function oneOf<const T extends readonly (string | number)[]>(values: T) {
  const listed = values.map((x) => (typeof x === 'string' ? `"${x}"` : String(x)));
  const text = listed.length <= 2 ? listed.join(' or ') : `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`;
  return v.picklist(values, `must be one of ${text}`);
}

export function list<T extends v.GenericSchema>(item: T) {
  return v.array(item, 'must be an array');
}

/**
 * A strict object that also refuses arrays (valibot's strictObject accepts `[]`, which would
 * silently pass as an empty partial section). Unknown keys are refused.
 */
export function obj<E extends v.ObjectEntries>(entries: E) {
  return v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'must be an object'), v.strictObject(entries));
}

/** The same entries, each optional and WITHOUT its default: the shape of a partial update of a section. */
export function optionalEntries<E extends v.ObjectEntries>(
  entries: E,
): { [K in keyof E]: v.OptionalSchema<E[K], undefined> } {
  const out: Record<string, v.OptionalSchema<v.GenericSchema, undefined>> = {};
  for (const [key, schema] of Object.entries(entries)) out[key] = v.optional(schema as v.GenericSchema);
  return out as { [K in keyof E]: v.OptionalSchema<E[K], undefined> };
}

/**
 * "host:port" for TCP/UDP outputs: IPv4, a DNS hostname or a bracketed IPv6 literal, port 1..65535.
 * Exported so the outputs parse exactly what was validated.
 */
export function parseHostPort(text: string): { host: string; port: number } | null {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  if (!match) return null;
  const portNumber = Number(match[3]);
  if (portNumber < 1 || portNumber > 65535) return null;
  if (match[1] !== undefined) return isIP(match[1]) === 6 ? { host: match[1], port: portNumber } : null;
  const host = match[2] as string;
  if (isIP(host) === 4) return { host, port: portNumber };
  // RFC 1123 hostname: labels of letters, digits and inner hyphens; not all-numeric (that would be a bad IPv4).
  const label = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
  if (host.length > 253 || /^[\d.]+$/.test(host) || !host.split('.').every((l) => label.test(l))) return null;
  return { host, port: portNumber };
}

/**
 * SIA DC-09 output key: 16/24/32 printable ASCII characters (AES-128/192/256, the characters are the
 * key bytes) or 48/64 hex digits. A 32-character string of hex digits is ambiguous (AES-256 as ASCII
 * or AES-128 as hex); Vigil reads it as HEX, the form receivers usually show (docs/settings.md).
 */
export function isValidSiaKey(key: string): boolean {
  if (/^[0-9A-Fa-f]+$/.test(key) && [32, 48, 64].includes(key.length)) return true;
  return isPrintableAscii(key) && [16, 24, 32].includes(key.length);
}
