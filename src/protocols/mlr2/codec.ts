/**
 * Sur-Gard MLR2 / MLR2-DG automation output ("Communication protocol with central station computer"), pure: values in,
 * bytes out, and the computer's one-byte replies in. Every message ends with DC4 (0x14); the computer answers each one
 * with ACK (0x06) or NAK (0x15). Layouts (s = space, [DC4] = 0x14), MLR2-DG installation manual §Automation protocols:
 *
 *   Contact ID            5RRLs18AAAAQXYZGGCCC[DC4]     Q = E new event/opening, R restore/closing, P previous event
 *   SIA Protocol 1        3RRLssssAAAAAAXXYYYY[DC4]     AAAAAA right-justified with spaces, XX SIA code, YYYY zone
 *   SIA Protocol 2 (-DG)  SRRL[#AAAA|Nri1BA01][DC4]     variable length: account up to 16 digits, area (ri) kept
 *   Heartbeat             1011sssssssssss@ssss[DC4]     "about every 30 seconds"; the computer ACKs it too
 *
 * RR is the receiver number and L the line number of the emulated receiver (docs/outputs.md §account and line mapping).
 * The 3-digit-line layouts of the MLR2-E / System III automation output (DSC "SG Automation Output Protocol", rev. 161,
 * §4.2 heartbeat, §4.7 SIA, §4.9 and §4.10 Contact ID) are the same lines with LLL in place of L:
 *
 *   Contact ID, 4 digits  5RRLLLs18AAAAQXYZGGCCC[DC4]
 *   Contact ID, 10 digits QRRLLLs58AAAAAAAAAAQXYZGGCCC[DC4]
 *   SIA Protocol 2        SRRLLL[#AAAA|Nri1BA01][DC4]
 *   Heartbeat             1RR000sssssssssss@ssss[DC4]   RR = the receiver number
 */
import { contactIdColumns, digitColumn, hexColumn, routeColumns } from './fields.js';
import { VigilError } from '../../core/errors.js';

export const DC4 = 0x14;
export const ACK = 0x06;
export const NAK = 0x15;

/** The supervisory heartbeat, byte for byte: '1011', 11 spaces, '@', 4 spaces, DC4. */
export const HEARTBEAT: Buffer = Buffer.from('1011           @    \x14', 'latin1');

/** Which SIA layout a receiver model uses; Contact ID and the heartbeat are the same on both. */
export type Mlr2Variant = 'MLR2' | 'MLR2-DG';

export interface Mlr2Route {
  /** RR: 0..99, written as two decimal digits. */
  readonly receiver: number;
  /** L: 0..9, one digit; LLL: 0..999 when lineDigits is 3. */
  readonly line: number;
  /** 1 (MLR2 / MLR2-DG, the default) or 3 (MLR2-E / System III virtual line). */
  readonly lineDigits?: 1 | 3;
  /**
   * Accounts longer than 4 significant digits go out in the 10-digit Contact ID layout (protocol Q, format 58) instead
   * of being refused; only with lineDigits 3, the layout's own line field.
   */
  readonly longAccounts?: boolean;
}

export interface CidFields {
  readonly account: string;
  readonly qualifier: 'E' | 'R' | 'P';
  /** XYZ: three hex digits (shorter is padded with zeros). */
  readonly code: string;
  readonly group?: string | null;
  readonly zone?: string | null;
}

export interface SiaFields {
  readonly account: string;
  /** Two upper-case letters (SIA DC-03 event code). */
  readonly code: string;
  /** The area (ri modifier); only SIA Protocol 2 can carry it. */
  readonly group?: string | null;
  /** Zone, user or other parameter digits of the code. */
  readonly zone?: string | null;
}

export type EncodeResult = { ok: true; bytes: Buffer } | { ok: false; reason: string };

function route(r: Mlr2Route): string {
  const digits = r.lineDigits ?? 1;
  const text = routeColumns(r.receiver, r.line, digits);
  // Settings validation keeps these in range; reaching this is a wiring bug, not a bad event.
  if (text === null)
    throw new VigilError(
      'INVALID_SETTINGS',
      `MLR2 receiver ${r.receiver} / line ${r.line} out of range (0..99 / 0..${10 ** digits - 1})`,
    );
  return text;
}

/** The supervisory heartbeat of a route: the fixed MLR2 line, or 1RR000... with a 3-digit line (SG §4.2). */
export function heartbeat(r: Mlr2Route): Buffer {
  if ((r.lineDigits ?? 1) === 1) return HEARTBEAT;
  const receiver = route({ receiver: r.receiver, line: 0, lineDigits: 3 }).slice(0, 2);
  return line(`1${receiver}000           @    `);
}

function line(text: string): Buffer {
  return Buffer.from(`${text}\x14`, 'latin1');
}

/**
 * 5RRLs18AAAAQXYZGGCCC[DC4] — 20 characters before the terminator (22 with LLL); an account of 5..10 significant
 * digits on a route with longAccounts: QRRLLLs58AAAAAAAAAAQXYZGGCCC[DC4].
 */
export function encodeContactId(r: Mlr2Route, e: CidFields): EncodeResult {
  let account = hexColumn('account', e.account, 4);
  let head = `5${route(r)} 18`;
  if (!account.ok && r.longAccounts && (r.lineDigits ?? 1) === 3) {
    account = hexColumn('account', e.account, 10);
    head = `Q${route(r)} 58`;
  }
  if (!account.ok) return account;
  const cid = contactIdColumns(e);
  if (!cid.ok) return cid;
  return { ok: true, bytes: line(`${head}${account.text}${e.qualifier}${cid.code}${cid.group}${cid.zone}`) };
}

const SIA_CODE_RE = /^[A-Z]{2}$/;

/** 3RRLssssAAAAAAXXYYYY[DC4] — 20 characters before the terminator. The area cannot be carried (Protocol 1). */
export function encodeSiaFixed(r: Mlr2Route, e: SiaFields): EncodeResult {
  // SIA Protocol 1 exists with the 1-digit line only; 3-digit-line receivers send SIA as Protocol 2 (SG §4.7).
  if ((r.lineDigits ?? 1) !== 1) return { ok: false, reason: 'SIA Protocol 1 has no 3-digit line layout' };
  const account = hexColumn('account', e.account, 6, ' ');
  if (!account.ok) return account;
  if (!SIA_CODE_RE.test(e.code)) return { ok: false, reason: `SIA code "${e.code}" is not two upper-case letters` };
  const zone = digitColumn('zone', e.zone, 4);
  if (!zone.ok) return zone;
  return { ok: true, bytes: line(`3${route(r)}    ${account.text}${e.code}${zone.text}`) };
}

const SIA2_ACCOUNT_RE = /^[0-9A-F]{1,16}$/;
const SIA2_PARAM_RE = /^[0-9]{0,6}$/;

/**
 * SRRL[#AAAAAA|Nri<area><code><zone>][DC4] (MLR2-DG "SIA Protocol 2", its standard-transmission example
 * "SRRL[#1234|Nri1BA01]"). The account, area and zone go out as received (no padding); N is the new-event function
 * block (the journal keeps events, not their original block functions).
 */
export function encodeSiaBlock(r: Mlr2Route, e: SiaFields): EncodeResult {
  const account = e.account.trim().toUpperCase();
  if (!SIA2_ACCOUNT_RE.test(account)) return { ok: false, reason: `account "${account}" is not 1 to 16 hex digits` };
  if (!SIA_CODE_RE.test(e.code)) return { ok: false, reason: `SIA code "${e.code}" is not two upper-case letters` };
  const area = (e.group ?? '').trim();
  const zone = (e.zone ?? '').trim();
  if (!SIA2_PARAM_RE.test(area)) return { ok: false, reason: `area "${area}" is not decimal digits` };
  if (!SIA2_PARAM_RE.test(zone)) return { ok: false, reason: `zone "${zone}" is not decimal digits` };
  const ri = area === '' ? '' : `ri${area}`;
  return { ok: true, bytes: line(`S${route(r)}[#${account}|N${ri}${e.code}${zone}]`) };
}

/** SIA events in the variant's layout. */
export function encodeSia(variant: Mlr2Variant, r: Mlr2Route, e: SiaFields): EncodeResult {
  return variant === 'MLR2-DG' ? encodeSiaBlock(r, e) : encodeSiaFixed(r, e);
}

export type Mlr2Reply = 'ack' | 'nak';

/**
 * The computer's replies in a chunk, in order. Only ACK and NAK mean something; any other byte (a stray CR/LF some
 * automation packages append) is ignored rather than treated as a refusal.
 */
export function readReplies(chunk: Uint8Array): Mlr2Reply[] {
  const out: Mlr2Reply[] = [];
  for (const byte of chunk) {
    if (byte === ACK) out.push('ack');
    else if (byte === NAK) out.push('nak');
  }
  return out;
}
