/**
 * Ademco 685 automation output ("685 mode" of the receivers that emulate the Ademco No. 685), pure: values in, bytes out,
 * and the computer's one-byte replies in. Contact ID is the only event layout (Honeywell ADEMCO MX8000 Installation and
 * Operation Guide, §8.5.4 "685 Contact ID", Figure 8-4), s = space, [LF] = 0x0A, [CR] = 0x0D:
 *
 *   [LF]RGs1234s18sQXYZsGGsFCCCs[CR]
 *
 *   R     receiver number, one decimal digit          G     receiver group number, one decimal digit
 *   1234  account, 4 digits                            18    dedicated Contact ID identifier
 *   Q     E new event / opening, R restore / closing   XYZ   event code; GG group; CCC zone or user
 *   F     C when CCC is a zone (contact), U when it is a user number
 *
 * The figure has six spaces, the last one before the CR. The periodic test message is the No. 685's OKAY message,
 * `[LF]00sOKAYs@[CR]` (ADEMCO No. 685 Installation Instructions, "Computer interface"; the MX8000 OKAY record is the
 * same string). The computer answers every message with ACK (0x06) or NAK (0x15), the same bytes as MLR2.
 */
import { VigilError } from '../../core/errors.js';
import { contactIdColumns, hexColumn } from '../mlr2/fields.js';
import { ACK, NAK, readReplies, type CidFields, type EncodeResult, type Mlr2Reply } from '../mlr2/codec.js';
import { isUserCode } from './user-codes.js';

export const LF = 0x0a;
export const CR = 0x0d;
export { ACK, NAK };

/** The periodic test ("OKAY") message, byte for byte. */
export const OKAY: Buffer = Buffer.from('\n00 OKAY @\r', 'latin1');

export interface Ademco685Route {
  /** R: the receiver number, 0..9. */
  readonly receiver: number;
  /** G: the receiver group number, 0..9. */
  readonly group: number;
}

/** The same Contact ID fields as an MLR2 line carries. */
export type Ademco685Event = CidFields;

function digit(name: string, n: number): string {
  // Settings validation keeps these in range; reaching this is a wiring bug, not a bad event.
  if (!Number.isInteger(n) || n < 0 || n > 9)
    throw new VigilError('INVALID_SETTINGS', `Ademco 685 ${name} ${n} out of range (0..9)`);
  return String(n);
}

/** `[LF]RG 1234 18 QXYZ GG FCCC [CR]` — 26 bytes. Fields are fitted like MLR2's (leading zeros only, never cut). */
export function encodeEvent(r: Ademco685Route, e: Ademco685Event): EncodeResult {
  const route = `${digit('receiver', r.receiver)}${digit('group', r.group)}`;
  const account = hexColumn('account', e.account, 4);
  if (!account.ok) return account;
  const cid = contactIdColumns(e);
  if (!cid.ok) return cid;
  const kind = isUserCode(cid.code) ? 'U' : 'C';
  const text = `\n${route} ${account.text} 18 ${e.qualifier}${cid.code} ${cid.group} ${kind}${cid.zone} \r`;
  return { ok: true, bytes: Buffer.from(text, 'latin1') };
}

export type Ademco685Reply = Mlr2Reply;

/** The computer's replies in a chunk, in order; other bytes (the computer's 'S' status request, CR/LF) are ignored. */
export function readAdemco685Replies(chunk: Uint8Array): Ademco685Reply[] {
  return readReplies(chunk);
}
