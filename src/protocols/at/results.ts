/**
 * Classification of modem lines (ITU-T V.250 §5.7, 3GPP TS 27.007 / 27.005): final result codes,
 * unsolicited result codes (URCs) and information text, and the parsers of the answers and URCs a
 * modem receiver reads. Pure.
 */

export type FinalResult =
  | { readonly ok: true; readonly line: string }
  | {
      readonly ok: false;
      readonly line: string;
      readonly kind: 'error' | 'cme' | 'cms' | 'call';
      readonly code: number | null;
      readonly text: string;
    };

/** V.250 §5.7.2, TS 27.007 §9.2 (+CME ERROR), TS 27.005 §3.2.5 (+CMS ERROR). */
export function finalResult(line: string): FinalResult | null {
  if (line === 'OK') return { ok: true, line };
  if (line === 'ERROR') return { ok: false, line, kind: 'error', code: null, text: 'ERROR' };
  const cme = /^\+CM([ES]) ERROR:\s*(.*)$/.exec(line);
  if (cme) {
    const detail = cme[2]!.trim();
    const code = /^\d+$/.test(detail) ? Number(detail) : null;
    return { ok: false, line, kind: cme[1] === 'E' ? 'cme' : 'cms', code, text: detail };
  }
  if (line === 'NO CARRIER' || line === 'BUSY' || line === 'NO ANSWER' || line === 'NO DIALTONE') {
    return { ok: false, line, kind: 'call', code: null, text: line };
  }
  return null;
}

/** Prefixes of URCs (TS 27.007 / 27.005 and common vendor ones). Any line starting with '^' is a vendor URC too. */
const URC_PREFIXES = [
  '+CMTI:',
  '+CMT:',
  '+CDS:',
  '+CDSI:',
  '+CBM:',
  '+CLIP:',
  '+CRING:',
  '+CREG:',
  '+CGREG:',
  '+CEREG:',
  '+CUSD:',
  '+CIEV:',
  '+CPIN:',
  '+CFUN:',
  '+QIND:',
  '+PBREADY',
  '+STIN:',
  '+CSQN:',
];
const URC_WORDS = new Set([
  'RING',
  'RDY',
  'Call Ready',
  'SMS Ready',
  'NORMAL POWER DOWN',
  'UNDER-VOLTAGE WARNNING',
  'PB DONE',
]);
/** URCs followed by one more line that belongs to them (TS 27.005 §3.4.1: +CMT / +CDS / +CBM in PDU mode). */
const TWO_LINE_URCS = ['+CMT:', '+CDS:', '+CBM:'];

export function isUrcLine(line: string): boolean {
  if (line.startsWith('^') || URC_WORDS.has(line)) return true;
  for (const p of URC_PREFIXES) if (line.startsWith(p)) return true;
  return false;
}

export function isTwoLineUrc(line: string): boolean {
  return TWO_LINE_URCS.some((p) => line.startsWith(p));
}

/** "+CSQ: 23,99" -> ["23", "99"]; quotes removed. Empty when the prefix does not match. */
export function fields(line: string, prefix: string): string[] {
  if (!line.startsWith(`${prefix}:`)) return [];
  const out: string[] = [];
  const re = /\s*("([^"]*)"|[^,]*)\s*(,|$)/gy;
  const body = line.slice(prefix.length + 1);
  let m: RegExpExecArray | null;
  while (re.lastIndex < body.length && (m = re.exec(body)) !== null) {
    out.push(m[2] ?? m[1]!.trim());
    if (m[3] === '') break;
  }
  return out;
}

/** +CMTI: <mem>,<index> (TS 27.005 §3.4.1). */
export function parseCmti(line: string): { storage: string; index: number } | null {
  const f = fields(line, '+CMTI');
  if (f.length < 2 || !/^\d+$/.test(f[1]!)) return null;
  return { storage: f[0]!, index: Number(f[1]) };
}

/** +CLIP: <number>,<type>[,...] (TS 27.007 §7.6). The number as the network gave it; "" when withheld. */
export function parseClip(line: string): { number: string; type: number | null } | null {
  const f = fields(line, '+CLIP');
  if (f.length < 1) return null;
  const type = f[1] !== undefined && /^\d+$/.test(f[1]) ? Number(f[1]) : null;
  const raw = f[0]!;
  // Type 145 = international: make sure the number reads as one.
  return { number: type === 145 && raw !== '' && !raw.startsWith('+') ? `+${raw}` : raw, type };
}

/**
 * +CREG: [<n>,]<stat>[,<lac>,<ci>...] (TS 27.007 §7.2). `solicited`: the answer to AT+CREG? (with
 * <n>) rather than the URC (without it). stat 1 = home, 5 = roaming: registered.
 */
export function parseCreg(line: string, solicited: boolean): { stat: number; registered: boolean } | null {
  const f = fields(line, '+CREG');
  const text = solicited ? f[1] : f[0];
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const stat = Number(text);
  return { stat, registered: stat === 1 || stat === 5 };
}

/** Whether a +CREG line is the answer to AT+CREG? (it starts with <n>, then <stat>). */
export function isSolicitedCreg(line: string): boolean {
  const f = fields(line, '+CREG');
  // With <n>=2 the URC is "<stat>,"<lac>","<ci>"": its second field is quoted hex, never a bare digit.
  return f.length >= 2 && /^\d$/.test(f[1]!) && /^\d$/.test(f[0]!);
}

/** +CSQ: <rssi>,<ber> (TS 27.007 §8.5): 0..31 or 99 (unknown); dBm = -113 + 2 × rssi. */
export function parseCsq(line: string): { csq: number; rssiDbm: number | null } | null {
  const f = fields(line, '+CSQ');
  if (f.length < 1 || !/^\d+$/.test(f[0]!)) return null;
  const csq = Number(f[0]);
  if (csq > 31 && csq !== 99) return null;
  return { csq, rssiDbm: csq === 99 ? null : -113 + 2 * csq };
}

/** +CPIN: <code> (TS 27.007 §8.3): READY, SIM PIN, SIM PUK, ... */
export function parseCpin(line: string): string | null {
  const f = fields(line, '+CPIN');
  return f.length > 0 ? f[0]! : null;
}

/** +CMGR: <stat>,[<alpha>],<length> (TS 27.005 §3.4.3, PDU mode). */
export function parseCmgrHeader(line: string): { stat: number } | null {
  const f = fields(line, '+CMGR');
  if (f.length < 2 || !/^\d+$/.test(f[0]!)) return null;
  return { stat: Number(f[0]) };
}

/** +CMGL: <index>,<stat>,[<alpha>],<length> (TS 27.005 §3.4.2, PDU mode). */
export function parseCmglHeader(line: string): { index: number; stat: number } | null {
  const f = fields(line, '+CMGL');
  if (f.length < 3 || !/^\d+$/.test(f[0]!) || !/^\d+$/.test(f[1]!)) return null;
  return { index: Number(f[0]), stat: Number(f[1]) };
}

/** The information text of an answer without its "+CMD: " prefix (AT+CGSN may answer either way). */
export function infoText(lines: readonly string[], prefix: string): string | null {
  for (const line of lines) {
    if (line.startsWith(`${prefix}:`))
      return line
        .slice(prefix.length + 1)
        .trim()
        .replace(/^"|"$/g, '');
    if (!line.startsWith('+')) return line.trim();
  }
  return null;
}
