/**
 * A Contact ID message as 16 digits of text (SIA DC-05 §3): ACCT(4) MT(2) Q(1) EEE(3) GG(2) ZZZ(3) S(1),
 * spaces optional. DC-05 §3.1.4 checksum: digit 0 counts 10, B..F count 11..15, and the sum of all
 * 16 digits is a multiple of 15. Pure.
 */

export type ContactIdParse =
  | {
      kind: 'message';
      account: string;
      qualifier: 'E' | 'R' | 'P';
      code: string;
      group: string;
      zone: string;
      digits: string;
    }
  /** 16 digits with a Contact ID message type whose checksum does not add up (or a bad qualifier). */
  | { kind: 'corrupt'; digits: string; reason: string }
  | { kind: 'none' };

/** DC-05 §3.1.2: message type 18 (preferred) or 98 (optional). */
const MESSAGE_TYPES = new Set(['18', '98']);
const QUALIFIERS: Record<string, 'E' | 'R' | 'P'> = { '1': 'E', '3': 'R', '6': 'P' };

export function digitValue(char: string): number {
  if (char === '0') return 10;
  const v = parseInt(char, 16);
  return Number.isNaN(v) ? -1 : v;
}

/** The DC-05 sum of a digit string (the checksum holds when it is a multiple of 15). */
export function contactIdSum(digits: string): number {
  let sum = 0;
  for (const c of digits) sum += digitValue(c);
  return sum;
}

/** The checksum digit that completes 15 digits (DC-05: a result of 0 is sent as F). */
export function contactIdChecksum(first15: string): string {
  const rest = 15 - (contactIdSum(first15) % 15);
  return rest === 15 ? 'F' : rest === 10 ? '0' : rest.toString(16).toUpperCase();
}

export function parseContactId(text: string): ContactIdParse {
  const digits = text.replace(/[ \r\n]/g, '').toUpperCase();
  // 'A' is how DTMF carries the digit 0; in text it is accepted as such.
  if (!/^[0-9A-F]{16}$/.test(digits) || !MESSAGE_TYPES.has(digits.slice(4, 6))) return { kind: 'none' };
  if (contactIdSum(digits) % 15 !== 0) return { kind: 'corrupt', digits, reason: 'checksum' };
  const qualifier = QUALIFIERS[digits[6]!];
  if (!qualifier) return { kind: 'corrupt', digits, reason: `event qualifier ${digits[6]}` };
  const normal = (s: string): string => s.replace(/A/g, '0');
  return {
    kind: 'message',
    account: normal(digits.slice(0, 4)),
    qualifier,
    code: normal(digits.slice(7, 10)),
    group: normal(digits.slice(10, 12)),
    zone: normal(digits.slice(12, 15)),
    digits,
  };
}
