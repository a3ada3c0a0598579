/**
 * ADM-CID data (SIA DC-09 Annex "ADM-CID", carrying Ademco Contact ID, SIA DC-05): "#acct|Qeee gg zzz"
 *   Q   qualifier: 1 new event or opening (E), 3 restore or closing (R), 6 previously reported, still present (P)
 *   eee event code, gg group (partition), zzz zone or user number.
 * Tolerated: the account without '#' or absent, no spaces, a space after the qualifier, lower-case hex digits
 * (Contact ID digits are hex: B-F appear in group and zone numbers).
 */
export interface CidEvent {
  account?: string;
  qualifier: 'E' | 'R' | 'P';
  code: string;
  group: string;
  zone: string;
}

export type CidResult = CidEvent | { error: string };

const CID_RE = /^([136]) ?([0-9A-Fa-f]{3}) ?([0-9A-Fa-f]{2}) ?([0-9A-Fa-f]{3})$/;
const QUALIFIERS: Record<string, CidEvent['qualifier']> = { '1': 'E', '3': 'R', '6': 'P' };

export function parseAdmCid(data: string): CidResult {
  const bar = data.lastIndexOf('|');
  const accountPart = bar < 0 ? '' : data.slice(0, bar);
  const eventPart = bar < 0 ? data : data.slice(bar + 1);
  const m = CID_RE.exec(eventPart);
  if (!m) return { error: `not a Contact ID event: "${eventPart.slice(0, 40)}"` };
  const event: CidEvent = {
    qualifier: QUALIFIERS[m[1]!]!,
    code: m[2]!.toUpperCase(),
    group: m[3]!.toUpperCase(),
    zone: m[4]!.toUpperCase(),
  };
  const account = accountPart.startsWith('#') ? accountPart.slice(1) : accountPart;
  if (account !== '') event.account = account;
  return event;
}
