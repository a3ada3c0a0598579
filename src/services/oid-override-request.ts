/**
 * Pure validation of the PUT /api/oid-override body (management API §OID override request,
 * rules 1-6). The contract lists ten 400 messages but not their conditions; Vigil's conditions,
 * checked in this order (docs/api.md "OID override"):
 *   `Invalid data`                  body not a JSON object, or a field name outside the four known
 *                                   ones (a misspelt `related_oid` must not silently hit the main device)
 *   `UID or OID must be provided`   uid and oid both absent, null or ""            (rule 3)
 *   `New override OID is required`  new_override_oid absent, null or ""            (rule 4)
 *   uid given (oid then ignored, not even checked: rules 1, 2):
 *     `UID must be numeric`         uid is neither a string nor a number (true, {}, [])
 *     `UID parse error`             uid is a JSON number that is not an exact non-negative
 *                                   integer (negative, fractional, above 2^53-1)
 *     `UID is too long`             uid string longer than 32 characters (the longest device-link UID)
 *     `UID must be hexadecimal`     uid string with a character outside 0-9 A-F a-f   (rule 6)
 *   `Invalid OID`                   oid used and not a string of 1..16 hex digits
 *   `Invalid related_oid`           related_oid present (not null, not "") and not 1..16 hex digits
 *   `Invalid new_override_oid`      new_override_oid not a string of 1..16 hex digits
 * A JSON-number uid is the UID's numeric value and is stored as upper-case hex without leading
 * zeros; all stored identifiers are upper-case hex.
 */
import { MAX_PARTIAL_UID_DIGITS } from './device-request.js';
import { isHex, isPlainObject } from './json-values.js';

/** SIA DC-09 message header: the account (#acct) is 3..16 hex digits; Vigil accepts 1..16. */
export const MAX_OID_DIGITS = 16;
export const MAX_UID_DIGITS = MAX_PARTIAL_UID_DIGITS;

const KNOWN_FIELDS = new Set(['uid', 'oid', 'related_oid', 'new_override_oid']);

export interface OidOverride {
  readonly matchKind: 'uid' | 'oid';
  readonly matchValue: string;
  readonly relatedOid: string | null;
  readonly overrideOid: string;
}

export type OidOverrideVerdict =
  | { readonly ok: true; readonly value: OidOverride }
  | { readonly ok: false; readonly error: string };

function given(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function isOid(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_OID_DIGITS && isHex(value);
}

function fail(error: string): OidOverrideVerdict {
  return { ok: false, error };
}

/** The uid as upper-case hex, or the contract message that refuses it. */
function parseUid(uid: unknown): { ok: true; hex: string } | { ok: false; error: string } {
  if (typeof uid === 'number') {
    if (!Number.isSafeInteger(uid) || uid < 0) return { ok: false, error: 'UID parse error' };
    return { ok: true, hex: uid.toString(16).toUpperCase() };
  }
  if (typeof uid !== 'string') return { ok: false, error: 'UID must be numeric' };
  if (uid.length > MAX_UID_DIGITS) return { ok: false, error: 'UID is too long' };
  if (!isHex(uid)) return { ok: false, error: 'UID must be hexadecimal' };
  return { ok: true, hex: uid.toUpperCase() };
}

export function parseOidOverride(body: unknown): OidOverrideVerdict {
  if (!isPlainObject(body)) return fail('Invalid data');
  if (Object.keys(body).some((k) => !KNOWN_FIELDS.has(k))) return fail('Invalid data');
  const { uid, oid, related_oid: relatedOid, new_override_oid: newOid } = body;
  if (!given(uid) && !given(oid)) return fail('UID or OID must be provided');
  if (!given(newOid)) return fail('New override OID is required');

  let matchKind: 'uid' | 'oid';
  let matchValue: string;
  if (given(uid)) {
    const parsed = parseUid(uid);
    if (!parsed.ok) return fail(parsed.error);
    matchKind = 'uid';
    matchValue = parsed.hex;
  } else {
    if (!isOid(oid)) return fail('Invalid OID');
    matchKind = 'oid';
    matchValue = oid.toUpperCase();
  }
  if (given(relatedOid) && !isOid(relatedOid)) return fail('Invalid related_oid');
  if (!isOid(newOid)) return fail('Invalid new_override_oid');
  return {
    ok: true,
    value: {
      matchKind,
      matchValue,
      relatedOid: given(relatedOid) ? (relatedOid as string).toUpperCase() : null,
      overrideOid: newOid.toUpperCase(),
    },
  };
}
