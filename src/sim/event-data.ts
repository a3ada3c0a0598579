/**
 * What a simulated panel reports: the n-th event's data block, and the DC-09 frames for events
 * and NULL link tests. Pure (time and pad bytes come in).
 *
 * Events alternate alarm / restore so a receiver sees realistic pairs. `burglary` on zones 001..999:
 *   SIA-DCS  "#<acct>|Nri01/BA001", "#<acct>|Nri01/BR001", "#<acct>|Nri01/BA002", ...   (SIA DC-03 BA/BR)
 *   ADM-CID  "#<acct>|1130 01 001", "#<acct>|3130 01 001", ...                          (SIA DC-05 130 burglary)
 * `mains`, the panel's own supply (zone 000), what a district-wide power cut makes every panel send:
 *   SIA-DCS  "#<acct>|Nri01/AT000", "#<acct>|Nri01/AR000", ...                          (SIA DC-03 AT/AR)
 *   ADM-CID  "#<acct>|1301 01 000", "#<acct>|3301 01 000", ...                          (SIA DC-05 301 AC loss)
 */
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import { buildMessage } from '../protocols/dc09/encoder.js';
import type { SimCodes, SimToken } from './sim-options.js';

export function eventData(token: SimToken, account: string, n: number, codes: SimCodes = 'burglary'): string {
  const alarm = n % 2 === 0;
  if (codes === 'mains') {
    if (token === 'ADM-CID') return `#${account}|${alarm ? '1' : '3'}301 01 000`;
    return `#${account}|Nri01/${alarm ? 'AT' : 'AR'}000`;
  }
  const zone = String((Math.floor(n / 2) % 999) + 1).padStart(3, '0');
  if (token === 'ADM-CID') return `#${account}|${alarm ? '1' : '3'}130 01 ${zone}`;
  return `#${account}|Nri01/${alarm ? 'BA' : 'BR'}${zone}`;
}

/** The fields every frame of one device shares. */
export interface FrameHeader {
  readonly token: SimToken;
  /** Which alarm / restore pairs the events carry (default burglary). */
  readonly codes?: SimCodes;
  readonly account: string;
  readonly receiver: string | null;
  readonly line: string | null;
  readonly key: Buffer | null;
  /** Plain messages carry a timestamp only when true; encrypted ones always do (§5.5.1.9). */
  readonly timestamps: boolean;
}

export interface FrameMoment {
  /** "0001".."9999" (§5.5.1.5). */
  readonly sequence: string;
  /** The device's wall clock, ms since the epoch. */
  readonly time: number;
  readonly randomBytes?: RandomBytes;
}

function build(h: FrameHeader, m: FrameMoment, token: SimToken | 'NULL', data: string): Buffer {
  return buildMessage({
    token,
    sequence: m.sequence,
    ...(h.receiver !== null ? { receiver: h.receiver } : {}),
    ...(h.line !== null ? { line: h.line } : {}),
    account: h.account,
    data,
    timestamp: h.timestamps || h.key ? m.time : null,
    key: h.key,
    ...(m.randomBytes ? { randomBytes: m.randomBytes } : {}),
  });
}

export function eventFrame(h: FrameHeader, m: FrameMoment, n: number): Buffer {
  return build(h, m, h.token, eventData(h.token, h.account, n, h.codes));
}

/** NULL message: supervision of the path, empty data block (§5.5.1.4, "NULL" token). */
export function linkTestFrame(h: FrameHeader, m: FrameMoment): Buffer {
  return build(h, m, 'NULL', '');
}

/** The transmitter's counter: 0001..9999, then 0001 again (0000 is never sent, §5.5.1.5). */
export function nextSequence(current: number): number {
  return current >= 9999 ? 1 : current + 1;
}

export function sequenceText(value: number): string {
  return String(value).padStart(4, '0');
}
