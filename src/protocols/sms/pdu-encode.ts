/**
 * SMS-DELIVER PDU encoder (3GPP TS 23.040 §9.2.2.1), the counterpart of pdu.ts: the modem
 * simulator and the tests build what a network would deliver with it. Long text is split into
 * concatenated parts with an 8-bit reference (TS 23.040 §9.2.3.24.1).
 */
import { ESCAPE, encodeSeptets, packSeptets } from './gsm7.js';
import type { SmsAlphabet } from './pdu.js';

export interface DeliverInput {
  /** "+3706..." (international) or digits. */
  readonly sender: string;
  readonly text: string;
  /** SMSC timestamp, UTC ms; written with zone +00. */
  readonly sentAt: number;
  /** Default: GSM 7-bit when every character fits, else UCS-2. */
  readonly alphabet?: SmsAlphabet;
  /** Reference of a concatenated message (0..255). */
  readonly ref?: number;
  readonly smsc?: string;
}

const SINGLE = { gsm7: 160, ucs2: 70, '8bit': 140 } as const;
const PART = { gsm7: 153, ucs2: 67, '8bit': 134 } as const;

/** One PDU (hex, upper case) per part, in order. */
export function encodeDeliverPdus(input: DeliverInput): string[] {
  const septets = input.alphabet === undefined || input.alphabet === 'gsm7' ? encodeSeptets(input.text) : null;
  const alphabet: SmsAlphabet = input.alphabet ?? (septets ? 'gsm7' : 'ucs2');
  if (alphabet === 'gsm7' && !septets) throw new Error('text does not fit the GSM 7-bit alphabet');
  const units: number[] =
    septets ?? (alphabet === 'ucs2' ? ucs2Units(input.text) : [...Buffer.from(input.text, 'latin1')]);
  if (units.length <= SINGLE[alphabet]) return [pdu(input, alphabet, units, null)];
  const chunks = split(units, PART[alphabet], alphabet);
  const ref = (input.ref ?? 0) & 0xff;
  return chunks.map((chunk, i) => pdu(input, alphabet, chunk, [0x00, 0x03, ref, chunks.length, i + 1]));
}

function ucs2Units(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out.push(code >> 8, code & 0xff);
  }
  return out;
}

/** Parts of at most `size` units; a GSM escape pair or a UCS-2 code unit is never cut. */
function split(units: number[], size: number, alphabet: SmsAlphabet): number[][] {
  const max = alphabet === 'ucs2' ? size * 2 : size;
  const out: number[][] = [];
  let at = 0;
  while (at < units.length) {
    let end = Math.min(at + max, units.length);
    if (alphabet === 'gsm7' && end < units.length && units[end - 1] === ESCAPE && !isEscapedPairEnd(units, at, end - 1))
      end--;
    out.push(units.slice(at, end));
    at = end;
  }
  return out;
}

/** Whether units[i] (an ESC value) is the second septet of a pair that starts at or after `from`. */
function isEscapedPairEnd(units: number[], from: number, i: number): boolean {
  let escapes = 0;
  for (let k = i - 1; k >= from && units[k] === ESCAPE; k--) escapes++;
  return escapes % 2 === 1;
}

function pdu(input: DeliverInput, alphabet: SmsAlphabet, units: number[], udh: number[] | null): string {
  const out: number[] = [];
  const smsc = input.smsc ?? '+37069999999';
  const smscDigits = semiOctets(smsc.replace(/^\+/, ''));
  out.push(smscDigits.length + 1, smsc.startsWith('+') ? 0x91 : 0x81, ...smscDigits);
  out.push(udh ? 0x44 : 0x04); // SMS-DELIVER, TP-MMS (no more messages waiting), TP-UDHI when a header follows
  const digits = input.sender.replace(/^\+/, '');
  out.push(digits.length, input.sender.startsWith('+') ? 0x91 : 0x81, ...semiOctets(digits));
  out.push(0x00, alphabet === 'gsm7' ? 0x00 : alphabet === 'ucs2' ? 0x08 : 0x04);
  out.push(...timestamp(input.sentAt));
  const header = udh ? [udh.length, ...udh] : [];
  if (alphabet === 'gsm7') {
    const fillBits = header.length === 0 ? 0 : (7 - ((header.length * 8) % 7)) % 7;
    const headerSeptets = Math.ceil((header.length * 8) / 7);
    const packed = packSeptets(units, header.length * 8 + fillBits);
    packed.set(header, 0);
    out.push(headerSeptets + units.length, ...packed);
  } else {
    out.push(header.length + units.length, ...header, ...units);
  }
  return Buffer.from(out).toString('hex').toUpperCase();
}

function semiOctets(digits: string): number[] {
  const padded = digits.length % 2 ? `${digits}F` : digits;
  const out: number[] = [];
  for (let i = 0; i < padded.length; i += 2) out.push(parseInt(padded[i + 1]! + padded[i]!, 16));
  return out;
}

function timestamp(ms: number): number[] {
  const d = new Date(ms);
  const fields = [
    d.getUTCFullYear() % 100,
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    0,
  ];
  return fields.map((n) => ((n % 10) << 4) | Math.floor(n / 10));
}
