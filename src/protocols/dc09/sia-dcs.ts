/**
 * SIA-DCS data (SIA DC-09 Annex "SIA-DCS", carrying SIA DC-03 blocks): "#acct|N<modifiers><code><param>/...".
 *   - '|' separates the account block from function blocks: N (new event), O (old event), A (ASCII text for the
 *     preceding event, SIA DC-03 level 3).
 *   - Inside an event block, '/' separates elements. Lower-case pairs are modifiers (ri area, id user, ti time,
 *     pi peripheral, ...) that apply to the events after them in the same block; upper-case pairs are event codes
 *     followed by their parameter digits (zone, user, area ... depending on the code).
 *   - Names and text: "^text^" after a modifier or code, and the "*"text"" form some transmitters use.
 * Unknown codes are kept as they are; the receiver stores them and never refuses a message for its code.
 */
import { decodeText } from './text.js';

export interface SiaEvent {
  /** 'N' new event, 'O' old (previously reported) event, '' when the transmitter omitted the function code. */
  function: 'N' | 'O' | '';
  code: string;
  /** Digits after the code as received (leading zeros kept); absent when none were sent. */
  parameter?: string;
  text?: string;
  /** Modifiers in effect for this event, e.g. { ri: '1', ti: '12:30:45' }; names as ri_name, id_name, ... */
  modifiers: Record<string, string>;
}

export interface SiaDcsData {
  /** The account repeated in the data ('#' removed), as received. */
  account?: string;
  events: SiaEvent[];
}

export type SiaDcsResult = SiaDcsData | { error: string };

const HEX_ACCOUNT_RE = /^[0-9A-Fa-f]{3,16}$/;
const isLower = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z';
const isUpper = (c: string | undefined): boolean => c !== undefined && c >= 'A' && c <= 'Z';
const isModifierValueChar = (c: string): boolean => /[0-9:.,-]/.test(c);

export function parseSiaDcs(data: string): SiaDcsResult {
  const parts = data.split('|');
  let account: string | undefined;
  if (parts.length > 1) {
    const first = parts[0]!;
    if (first.startsWith('#')) account = first.slice(1);
    else if (HEX_ACCOUNT_RE.test(first)) account = first; // tolerated: account without '#'
    if (account !== undefined || first === '') parts.shift();
  } else if (parts[0]!.startsWith('#')) {
    return { error: 'no event block after the account' };
  }
  const events: SiaEvent[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const last = events[events.length - 1];
    if (part[0] === 'A' && last !== undefined && !startsWithCode(part)) {
      // ASCII block: text for the event before it.
      last.text = last.text ? `${last.text} ${decodeText(part.slice(1))}` : decodeText(part.slice(1));
      continue;
    }
    const block = parseEventBlock(part);
    if (typeof block === 'string') return { error: block };
    events.push(...block);
  }
  if (events.length === 0) return { error: 'no event code in the data' };
  return account === undefined ? { events } : { account, events };
}

/** "AR" alone or "AR12" is an event code even in first position; "AText" is an ASCII block. */
function startsWithCode(part: string): boolean {
  return /^[A-Z]{2}\d*(\^|\/|$)/.test(part);
}

function parseEventBlock(block: string): SiaEvent[] | string {
  let fn: SiaEvent['function'] = '';
  let s = block;
  // Strip the function code only when what follows is a modifier or a code: "NOP1" is N + OP1, "OP1" is OP1.
  if ((s[0] === 'N' || s[0] === 'O') && ((isLower(s[1]) && isLower(s[2])) || (isUpper(s[1]) && isUpper(s[2])))) {
    fn = s[0];
    s = s.slice(1);
  }
  const events: SiaEvent[] = [];
  const modifiers: Record<string, string> = {};
  let lastModifier: string | null = null;
  let lastEvent: SiaEvent | null = null;
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '/') {
      i++;
      continue;
    }
    if (c === '^') {
      const end = s.indexOf('^', i + 1);
      const text = decodeText(s.slice(i + 1, end < 0 ? s.length : end));
      if (lastEvent) lastEvent.text = text;
      else if (lastModifier) modifiers[`${lastModifier}_name`] = text;
      i = end < 0 ? s.length : end + 1;
      continue;
    }
    if (c === '*' && s[i + 1] === '"') {
      const end = s.indexOf('"', i + 2);
      if (lastEvent) lastEvent.text = decodeText(s.slice(i + 2, end < 0 ? s.length : end));
      i = end < 0 ? s.length : end + 1;
      // That form closes with a literal NM marker, not an event code.
      if (s.startsWith('NM', i) && (i + 2 === s.length || s[i + 2] === '/')) i += 2;
      continue;
    }
    if (c === ' ') {
      i++;
      continue;
    }
    if (isLower(c) && isLower(s[i + 1])) {
      const key = s.slice(i, i + 2);
      let j = i + 2;
      while (j < s.length && isModifierValueChar(s[j]!)) j++;
      modifiers[key] = s.slice(i + 2, j);
      lastModifier = key;
      lastEvent = null;
      i = j;
      continue;
    }
    if (isUpper(c) && isUpper(s[i + 1])) {
      const code = s.slice(i, i + 2);
      let j = i + 2;
      while (j < s.length && s[j]! >= '0' && s[j]! <= '9') j++;
      const event: SiaEvent = { function: fn, code, modifiers: { ...modifiers } };
      if (j > i + 2) event.parameter = s.slice(i + 2, j);
      events.push(event);
      lastEvent = event;
      lastModifier = null;
      i = j;
      continue;
    }
    return `unexpected "${c}" in SIA data`;
  }
  return events;
}
