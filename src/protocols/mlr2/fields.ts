/**
 * Fixed-width fields of the Sur-Gard automation output (MLR2 / MLR2-DG "Communication protocol with central station
 * computer"). Every line has fixed columns, so a value either fits its column exactly or the event cannot be sent in
 * that layout: nothing is ever cut off on the right, because a shortened account or zone would name another customer.
 * Padding rules (docs/outputs.md §MLR2 byte layout):
 *   - digits-only columns (CID account, event code, group, zone; SIA zone) are padded on the left with '0';
 *   - the SIA account column is right-justified and padded with spaces ("Leading spaces will be sent if account codes
 *     are less than six digits", MLR2-DG manual, SIA Protocol 1);
 *   - a value longer than its column may lose LEADING ZEROS only (they carry no meaning in a number).
 */

export type FieldResult = { ok: true; text: string } | { ok: false; reason: string };

const HEX_RE = /^[0-9A-F]+$/;
const DIGITS_RE = /^[0-9]+$/;

/** Strips leading zeros while the text is longer than `width`; null when significant digits do not fit. */
function shorten(text: string, width: number): string | null {
  let out = text;
  while (out.length > width && out[0] === '0') out = out.slice(1);
  return out.length > width ? null : out;
}

/**
 * A hex-digit column (Contact ID digits are hex: B-F appear in accounts, groups and zones; SIA DC-05). Empty or
 * absent values become all zeros, which the Contact ID standard defines as "no specific group / zone".
 */
export function hexColumn(
  name: string,
  value: string | null | undefined,
  width: number,
  pad: '0' | ' ' = '0',
): FieldResult {
  const text = (value ?? '').trim().toUpperCase();
  if (text !== '' && !HEX_RE.test(text)) return { ok: false, reason: `${name} "${text}" is not hex digits` };
  const fitted = shorten(text, width);
  if (fitted === null) return { ok: false, reason: `${name} "${text}" has more than ${width} significant digits` };
  return { ok: true, text: fitted.padStart(width, pad) };
}

/** The Contact ID columns after the account, QXYZ GG CCC: qualifier checked; code, group and zone fitted. */
export type CidColumns = { ok: true; code: string; group: string; zone: string } | { ok: false; reason: string };

export function contactIdColumns(e: {
  readonly qualifier: string;
  readonly code: string;
  readonly group?: string | null | undefined;
  readonly zone?: string | null | undefined;
}): CidColumns {
  const code = hexColumn('event code', e.code, 3);
  if (!code.ok) return code;
  const group = hexColumn('group', e.group, 2);
  if (!group.ok) return group;
  const zone = hexColumn('zone', e.zone, 3);
  if (!zone.ok) return zone;
  if (e.qualifier !== 'E' && e.qualifier !== 'R' && e.qualifier !== 'P')
    return { ok: false, reason: `qualifier "${String(e.qualifier)}"` };
  return { ok: true, code: code.text, group: group.text, zone: zone.text };
}

/** A decimal-digit column (the SIA zone/user parameter is decimal digits, SIA DC-03). */
export function digitColumn(name: string, value: string | null | undefined, width: number): FieldResult {
  const text = (value ?? '').trim();
  if (text !== '' && !DIGITS_RE.test(text)) return { ok: false, reason: `${name} "${text}" is not decimal digits` };
  const fitted = shorten(text, width);
  if (fitted === null) return { ok: false, reason: `${name} "${text}" has more than ${width} significant digits` };
  return { ok: true, text: fitted.padStart(width, '0') };
}

/**
 * Receiver number RR (2 columns) and line number L (1 column, MLR2 / MLR2-DG) or LLL (3 columns, the "virtual line"
 * of the MLR2-E / System III automation output), written in decimal as configured.
 */
export function routeColumns(receiver: number, line: number, lineDigits: 1 | 3 = 1): string | null {
  if (!Number.isInteger(receiver) || receiver < 0 || receiver > 99) return null;
  if (!Number.isInteger(line) || line < 0 || line >= 10 ** lineDigits) return null;
  return `${String(receiver).padStart(2, '0')}${String(line).padStart(lineDigits, '0')}`;
}
