/**
 * The Sur-Gard MLR2 / MLR2-DG computer-port feed, read side, pure: one line (without its DC4) in, one message out.
 * Vigil is the automation software behind a legacy receiver (docs/serial.md §MLR2 input). The layouts are the ones
 * codec.ts writes (MLR2-DG installation manual §Automation protocols):
 *
 *   Contact ID            5RRLs18AAAAQXYZGGCCC     Q = E new event/opening, R restore/closing, P previous event
 *   SIA Protocol 1        3RRLssssAAAAAAXXYYYY     account right-justified with spaces, XX SIA code, YYYY zone
 *   SIA Protocol 2 (-DG)  SRRL[#AAAA|Nri1BA01]     account up to 16 hex digits, area (ri) optional
 *   Heartbeat             1RRLsssssssssss@ssss     "about every 30 seconds"
 *
 * The first character is the protocol number (MLR2-DG manual §Automation protocols: "5: Protocol number", "3: Protocol
 * number"). A line whose type Vigil knows but whose layout is wrong (cut short, padded, a field outside its alphabet) is
 * `malformed`: NAKed, so the receiver sends it again (MLR2 manual §Acknowledgment of the Signal: a NAK makes it
 * retransmit the signal); ACKing it would tell the receiver the automation took a signal it never read. How a type is
 * known (KNOWN_TYPES): protocol 5 is Contact ID only and protocol 3 SIA Protocol 1 only, so their number alone names
 * the type; 'S' also starts the receiver's own messages, so SIA Protocol 2 is known by its block opening "SRRL[";
 * protocol 1 is shared by many formats (Sur-Gard 4/2, open/close, Radionics 6500, Outel, clock), so only a '1' line
 * with the supervisory '@' is a heartbeat. A line that stops inside the route ("S01", "1011   ") is a cut one of
 * the type its first character names: no layout ends there. A line of printable characters of no known type is
 * `unknown` (journaled as received, never dropped); a line with other bytes is `malformed` too.
 */
export interface Mlr2Route {
  /** RR as received (two digits). */
  readonly receiver: string;
  /** L as received (one digit). */
  readonly line: string;
}

export type Mlr2Message =
  | {
      kind: 'cid';
      route: Mlr2Route;
      account: string;
      qualifier: 'E' | 'R' | 'P';
      code: string;
      group: string;
      zone: string;
    }
  | { kind: 'sia'; route: Mlr2Route; account: string; code: string; group: string | null; zone: string }
  | { kind: 'heartbeat'; route: Mlr2Route }
  | { kind: 'unknown'; text: string }
  | { kind: 'malformed'; reason: string };

const CID_RE = /^5(\d\d)(\d) 18([0-9A-F]{4})([ERP])([0-9A-F]{3})([0-9A-F]{2})([0-9A-F]{3})$/;
const SIA1_RE = /^3(\d\d)(\d) {4}( {0,5}[0-9A-F]{1,6})([A-Z]{2})(\d{4})$/;
const SIA2_RE = /^S(\d\d)(\d)\[#([0-9A-F]{1,16})\|N(?:ri(\d{1,6}))?([A-Z]{2})(\d{0,6})\]$/;
const HEARTBEAT_RE = /^1(\d\d)(\d) {11}@ {4}$/;
const PRINTABLE_RE = /^[\x20-\x7e]+$/;

/** Which known type a line claims to be, in the order checked, with the layout it must then have. */
const KNOWN_TYPES: ReadonlyArray<{ readonly marker: RegExp; readonly name: string; readonly layout: string }> = [
  { marker: /^5/, name: 'Contact ID', layout: '5RRLs18AAAAQXYZGGCCC' },
  { marker: /^3/, name: 'SIA Protocol 1', layout: '3RRLssssAAAAAAXXYYYY' },
  { marker: /^S\d{0,3}(\[|$)/, name: 'SIA Protocol 2', layout: 'SRRL[#AAAA|Nri1BA01]' },
  { marker: /^1\d{0,3} *(@|$)/, name: 'heartbeat', layout: '1RRLsssssssssss@ssss' },
];

/** The bytes a message can start with: where a resync may find one after garbage. */
export const MESSAGE_STARTS: ReadonlySet<number> = new Set([0x35, 0x33, 0x53, 0x31]); // '5' '3' 'S' '1'

/** A known layout only (no unknown/malformed): what the framer resynchronises on. */
export function decodeKnown(text: string): Exclude<Mlr2Message, { kind: 'unknown' | 'malformed' }> | null {
  let m = CID_RE.exec(text);
  if (m) {
    return {
      kind: 'cid',
      route: { receiver: m[1]!, line: m[2]! },
      account: m[3]!,
      qualifier: m[4] as 'E' | 'R' | 'P',
      code: m[5]!,
      group: m[6]!,
      zone: m[7]!,
    };
  }
  m = SIA1_RE.exec(text);
  if (m && m[3]!.length === 6) {
    return {
      kind: 'sia',
      route: { receiver: m[1]!, line: m[2]! },
      account: m[3]!.trim(),
      code: m[4]!,
      group: null,
      zone: m[5]!,
    };
  }
  m = SIA2_RE.exec(text);
  if (m)
    return {
      kind: 'sia',
      route: { receiver: m[1]!, line: m[2]! },
      account: m[3]!,
      code: m[5]!,
      group: m[4] ?? null,
      zone: m[6]!,
    };
  m = HEARTBEAT_RE.exec(text);
  if (m) return { kind: 'heartbeat', route: { receiver: m[1]!, line: m[2]! } };
  return null;
}

export function decodeMlr2Line(body: Buffer): Mlr2Message {
  const text = body.toString('latin1');
  const known = decodeKnown(text);
  if (known) return known;
  if (text.length === 0) return { kind: 'malformed', reason: 'empty line' };
  if (!PRINTABLE_RE.test(text)) return { kind: 'malformed', reason: 'bytes outside printable ASCII' };
  const type = KNOWN_TYPES.find((t) => t.marker.test(text));
  if (type) return { kind: 'malformed', reason: `${type.name} line "${text}" is not in its layout ${type.layout}` };
  return { kind: 'unknown', text };
}
