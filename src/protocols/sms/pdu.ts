/**
 * SMS-DELIVER PDU decoder (3GPP TS 23.040 §9.2.2.1) as `AT+CMGR` / `AT+CMGL` give it in PDU mode
 * (3GPP TS 27.005 §3.1: SMSC address first). Pure: hex in, a message or an error out.
 */
import { decodeSeptets, unpackSeptets } from './gsm7.js';
import { parseUserDataHeader, type ConcatInfo } from './udh.js';

export type SmsAlphabet = 'gsm7' | '8bit' | 'ucs2';

export interface SmsDeliver {
  /** The originating address as received: "+" and digits for international numbers. */
  readonly sender: string;
  readonly smsc: string;
  /** TP-SCTS as UTC ms (its own time zone applied); null when not a real date. */
  readonly sentAt: number | null;
  readonly alphabet: SmsAlphabet;
  /** The user data as text (8-bit data read as Latin-1, byte for byte). */
  readonly text: string;
  /** Present when this PDU is one part of a concatenated message (TS 23.040 §9.2.3.24.1/.8). */
  readonly concat: ConcatInfo | null;
}

export type PduResult = { ok: true; sms: SmsDeliver } | { ok: false; error: string };

/** TS 23.040 §9.2.3.1: TP-MTI 00 in the MS direction is SMS-DELIVER. */
const MTI_DELIVER = 0;

class Reader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}
  byte(): number {
    if (this.pos >= this.bytes.length) throw new RangeError('PDU ends early');
    return this.bytes[this.pos++]!;
  }
  take(n: number): Uint8Array {
    if (this.pos + n > this.bytes.length) throw new RangeError('PDU ends early');
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

export function hexToBytes(hex: string): Uint8Array | null {
  const clean = hex.trim();
  if (clean.length === 0 || clean.length % 2 !== 0 || !/^[0-9A-Fa-f]+$/.test(clean)) return null;
  return Uint8Array.from(Buffer.from(clean, 'hex'));
}

export function decodeDeliverPdu(hex: string): PduResult {
  const bytes = hexToBytes(hex);
  if (!bytes) return { ok: false, error: 'PDU is not hex' };
  try {
    return { ok: true, sms: read(new Reader(bytes)) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

function read(r: Reader): SmsDeliver {
  const smscLength = r.byte();
  const smsc = smscLength > 0 ? address(r.byte(), r.take(smscLength - 1), (smscLength - 1) * 2) : '';
  const first = r.byte();
  if ((first & 0x03) !== MTI_DELIVER) throw new Error(`not an SMS-DELIVER (TP-MTI ${first & 0x03})`);
  const udhi = (first & 0x40) !== 0;
  // TS 23.040 §9.1.2.5: the length counts semi-octets of the address value.
  const digits = r.byte();
  const type = r.byte();
  const sender = address(type, r.take(Math.ceil(digits / 2)), digits);
  r.byte(); // TP-PID
  const dcs = r.byte();
  const sentAt = timestamp(r.take(7));
  const udl = r.byte();
  const alphabet = alphabetOf(dcs);
  const rest = r.bytes.subarray(r.pos);
  let concat: ConcatInfo | null = null;
  let headerOctets = 0;
  if (udhi) {
    if (rest.length < 1) throw new RangeError('PDU ends early');
    headerOctets = rest[0]! + 1;
    if (headerOctets > rest.length) throw new RangeError('user data header longer than the user data');
    concat = parseUserDataHeader(rest.subarray(1, headerOctets)).concat;
  }
  let text: string;
  if (alphabet === 'gsm7') {
    // TS 23.040 §9.2.3.24: the header plus fill bits take whole septets; UDL counts septets.
    const skip = Math.ceil((headerOctets * 8) / 7);
    if (Math.ceil((udl * 7) / 8) > rest.length) throw new RangeError('user data shorter than TP-UDL');
    text = decodeSeptets(unpackSeptets(rest, udl, skip));
  } else {
    if (udl > rest.length) throw new RangeError('user data shorter than TP-UDL');
    const body = rest.subarray(headerOctets, udl);
    text = alphabet === 'ucs2' ? ucs2(body) : Buffer.from(body).toString('latin1');
  }
  return { sender, smsc, sentAt, alphabet, text, concat };
}

/** TS 23.038 §4: the character set a TP-DCS selects (compressed text is not supported: read as 8-bit). */
export function alphabetOf(dcs: number): SmsAlphabet {
  const group = dcs >> 4;
  if (group <= 0x7) {
    // General data coding (00xx) and its automatic-deletion twin (01xx): bits 3..2.
    if (dcs & 0x20) return '8bit';
    const set = (dcs >> 2) & 0x03;
    return set === 1 ? '8bit' : set === 2 ? 'ucs2' : 'gsm7';
  }
  if (group === 0xe) return 'ucs2';
  if (group === 0xf) return dcs & 0x04 ? '8bit' : 'gsm7';
  return 'gsm7';
}

function ucs2(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i + 1 < bytes.length; i += 2) text += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
  return text;
}

/** TS 23.040 §9.1.2.5: semi-octet digits, or GSM 7-bit text for an alphanumeric sender (TON 101). */
function address(type: number, value: Uint8Array, semiOctets: number): string {
  const ton = (type >> 4) & 0x07;
  if (ton === 0x05) return decodeSeptets(unpackSeptets(value, Math.floor((semiOctets * 4) / 7)));
  let digits = '';
  for (let i = 0; i < semiOctets; i++) {
    const octet = value[i >> 1] ?? 0xff;
    const nibble = i & 1 ? octet >> 4 : octet & 0x0f;
    if (nibble === 0x0f) break;
    digits += '0123456789*#abc'[nibble];
  }
  return ton === 0x01 ? `+${digits}` : digits;
}

/** TS 23.040 §9.2.3.11: swapped BCD YYMMDDhhmmss plus the zone in quarter hours (bit 3: negative). */
function timestamp(b: Uint8Array): number | null {
  const bcd = (octet: number): number => (octet & 0x0f) * 10 + (octet >> 4);
  const [yy, mo, dd, hh, mi, ss] = [bcd(b[0]!), bcd(b[1]!), bcd(b[2]!), bcd(b[3]!), bcd(b[4]!), bcd(b[5]!)];
  const zone = b[6]!;
  const quarters = (zone & 0x07) * 10 + (zone >> 4);
  const offsetMin = (zone & 0x08 ? -quarters : quarters) * 15;
  if (mo < 1 || mo > 12 || dd < 1 || dd > 31 || hh > 23 || mi > 59 || ss > 59) return null;
  // Two-digit year: 90..99 read as 1990s (published test vectors), the rest as 20xx.
  const local = Date.UTC(yy >= 90 ? 1900 + yy : 2000 + yy, mo - 1, dd, hh, mi, ss);
  if (new Date(local).getUTCDate() !== dd) return null;
  return local - offsetMin * 60_000;
}
