/**
 * Query-string parsing for the listing endpoints (GET /api/events, GET /api/objects) and the
 * switches of the /api/system paths. Pure:
 * URLSearchParams in, typed values or `<param>: <reason>` lines out (the plain-text style of
 * PUT /api/settings, docs/api.md "Objects and events").
 *
 * Strict on purpose: an unknown or misspelt parameter (`acount=`) is a 400, never silently
 * ignored, because an ignored filter answers with MORE data than the caller asked for.
 */
import { CONTROL_CHARACTERS, ID_MAX } from '../settings/fields.js';

export type ParamResult<T> = { ok: true; value: T } | { ok: false; reason: string };
export type ParamParser<T> = (text: string) => ParamResult<T>;

type ValueOf<P> = P extends ParamParser<infer T> ? T : never;
export type ParsedQuery<P extends Record<string, ParamParser<unknown>>> = { [K in keyof P]?: ValueOf<P[K]> };

export type QueryResult<P extends Record<string, ParamParser<unknown>>> =
  | { ok: true; values: ParsedQuery<P> }
  | { ok: false; errors: string[] };

/** Receiver ids are settings ids (1..ID_MAX). */
export const RECEIVER_ID_MAX = ID_MAX;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** The largest instant a JavaScript Date can hold (ECMA-262 §21.4.1.1). */
export const MAX_INSTANT_MS = 8.64e15;

const ok = <T>(value: T): ParamResult<T> => ({ ok: true, value });
const fail = (reason: string): ParamResult<never> => ({ ok: false, reason });

/**
 * Parses every parameter with its parser. Errors, one line each: parameters in `parsers` order,
 * then unknown ones in query order. An empty value and a repeated parameter are errors too.
 */
export function parseQuery<P extends Record<string, ParamParser<unknown>>>(
  query: URLSearchParams,
  parsers: P,
): QueryResult<P> {
  const errors: string[] = [];
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(parsers)) {
    const given = query.getAll(name);
    if (given.length === 0) continue;
    if (given.length > 1) {
      errors.push(`${name}: must be given at most once`);
      continue;
    }
    const text = given[0]!;
    if (text === '') {
      errors.push(`${name}: must not be empty`);
      continue;
    }
    const result = parsers[name]!(text);
    if (result.ok) values[name] = result.value;
    else errors.push(`${name}: ${result.reason}`);
  }
  const unknown = new Set<string>();
  for (const name of query.keys()) {
    if (!Object.hasOwn(parsers, name)) unknown.add(name);
  }
  // The name is echoed, so keep it printable and short: a log-injection vector otherwise.
  for (const name of unknown) errors.push(`${printable(name)}: unknown parameter`);
  return errors.length ? { ok: false, errors } : { ok: true, values: values as ParsedQuery<P> };
}

function printable(name: string): string {
  const clean = name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 40 ? `${clean.slice(0, 40)}...` : clean;
}

/** A decimal integer in [min, max]: digits only, no sign, no leading zeros, no exponent. */
export function integerParam(min: number, max: number): ParamParser<number> {
  const reason = `must be an integer between ${min} and ${max}`;
  return (text) => {
    if (!/^(0|[1-9][0-9]{0,15})$/.test(text)) return fail(reason);
    const value = Number(text);
    return value >= min && value <= max ? ok(value) : fail(reason);
  };
}

export const receiverParam = integerParam(1, RECEIVER_ID_MAX);
export const limitParam = integerParam(1, MAX_LIMIT);

/** Free text compared exactly (accounts: leading zeros count, docs/store.md §Identity). */
export function textParam(maxLength: number): ParamParser<string> {
  return (text) => {
    if (text.length > maxLength) return fail(`must be at most ${maxLength} characters`);
    if (CONTROL_CHARACTERS.test(text)) return fail('must not contain control characters');
    return ok(text);
  };
}

/** Event codes: CID is 3 hex digits, SIA 2 letters; compared case-insensitively by the store. */
export const codeParam: ParamParser<string> = (text) =>
  /^[0-9A-Za-z]{1,8}$/.test(text) ? ok(text) : fail('must be 1 to 8 letters or digits');

/**
 * Page cursors are the `next_cursor` strings of a previous page. They are the id of the last
 * item shown, written in decimal, but clients must treat them as opaque (docs/api.md).
 */
/** A yes/no switch: `1`/`true` or `0`/`false` (GET /api/system/backup `journal`, the upload flags). */
export const flagParam: ParamParser<boolean> = (text) =>
  text === '1' || text === 'true' ? ok(true) : text === '0' || text === 'false' ? ok(false) : fail('must be 1 or 0');

export function toCursor(id: number | null): string | null {
  return id === null ? null : String(id);
}

export const cursorParam: ParamParser<number> = (text) =>
  /^[1-9][0-9]{0,15}$/.test(text) && Number(text) <= Number.MAX_SAFE_INTEGER
    ? ok(Number(text))
    : fail('must be the next_cursor of a previous page');

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+ -])(\d{2}):?(\d{2}))?)?$/;
export const INSTANT_REASON =
  'must be an ISO 8601 date-time with a time zone (2026-01-01T12:00:00Z) or milliseconds since the epoch';

/**
 * An instant as milliseconds since the epoch: either all digits (ms epoch, 0..8.64e15) or
 * ISO 8601 `YYYY-MM-DD[THH:MM[:SS[.fff]](Z|±HH:MM)]`. A date alone is midnight UTC; a time
 * without a zone is refused (the gateway's local zone is no business of the client). A space
 * stands for `+` before the offset: an unencoded `+` arrives as a space in a query string.
 * Fractions beyond milliseconds are cut off. Calendar-invalid dates (Feb 30) are refused.
 */
export const instantParam: ParamParser<number> = (text) => {
  if (/^[0-9]{1,16}$/.test(text)) {
    const ms = Number(text);
    return ms <= MAX_INSTANT_MS ? ok(ms) : fail(INSTANT_REASON);
  }
  const m = ISO.exec(text);
  if (!m) return fail(INSTANT_REASON);
  const [, y, mo, d, hh, mi, ss, frac, zulu, sign, oh, om] = m;
  const hasTime = hh !== undefined;
  if (hasTime && zulu === undefined && sign === undefined) return fail(INSTANT_REASON);
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(hh ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(ss ?? 0);
  const offsetMin = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  const daysInMonth = month >= 1 && month <= 12 ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 0;
  const valid =
    year >= 1970 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    Number(oh ?? 0) <= 23 &&
    Number(om ?? 0) <= 59;
  if (!valid) return fail(INSTANT_REASON);
  const ms = Number((frac ?? '').padEnd(3, '0').slice(0, 3));
  return ok(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMin * 60_000);
};

/** ISO 8601 in UTC with milliseconds, as every other timestamp of the API. */
export function toIso(ms: number): string;
export function toIso(ms: number | null): string | null;
export function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
