/**
 * DC-09 timestamps (SIA DC-09-2013 §5.5.1.8): "_HH:MM:SS,MM-DD-YYYY", always UTC (GMT). The receiver's time test
 * (§5.5.1.8, §5.5.3.2) accepts a message whose timestamp lies within [now - 40 s, now + 20 s].
 */
/** "HH:MM:SS,MM-DD-YYYY": the separators' positions; every other of the 19 characters is a decimal digit. */
const SHAPE_LENGTH = 19;
const SEPARATORS: ReadonlyArray<readonly [number, number]> = [
  [2, 0x3a],
  [5, 0x3a],
  [8, 0x2c],
  [11, 0x2d],
  [14, 0x2d],
];

/**
 * True when `text` has the shape "HH:MM:SS,MM-DD-YYYY" (digits, not values). Char codes, no regex:
 * it runs for every message that carries a timestamp.
 */
export function hasTimestampShape(text: string): boolean {
  if (text.length !== SHAPE_LENGTH) return false;
  let sep = 0;
  for (let i = 0; i < SHAPE_LENGTH; i++) {
    const c = text.charCodeAt(i);
    if (sep < SEPARATORS.length && SEPARATORS[sep]![0] === i) {
      if (c !== SEPARATORS[sep]![1]) return false;
      sep++;
    } else if (c < 0x30 || c > 0x39) {
      return false;
    }
  }
  return true;
}

function digits(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = at; i < at + count; i++) value = value * 10 + (text.charCodeAt(i) - 0x30);
  return value;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Milliseconds since the epoch for "HH:MM:SS,MM-DD-YYYY" read as UTC, or null when not a real date/time. */
export function parseTimestamp(text: string): number | null {
  if (!hasTimestampShape(text)) return null;
  const hh = digits(text, 0, 2);
  const mi = digits(text, 3, 2);
  const ss = digits(text, 6, 2);
  const mo = digits(text, 9, 2);
  const dd = digits(text, 12, 2);
  const yyyy = digits(text, 15, 4);
  if (hh > 23 || mi > 59 || ss > 59 || mo < 1 || mo > 12 || dd < 1 || yyyy < 1970) return null;
  // Reject 02-31 and the like instead of letting Date roll over into the next month (proleptic Gregorian, as Date).
  if (dd > daysInMonth(yyyy, mo)) return null;
  return Date.UTC(yyyy, mo - 1, dd, hh, mi, ss);
}

/** "HH:MM:SS,MM-DD-YYYY" in UTC for a millisecond time (fraction of a second dropped). */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return (
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())},` +
    `${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}-${String(d.getUTCFullYear()).padStart(4, '0')}`
  );
}

export interface TimeWindow {
  windowPastS: number;
  windowFutureS: number;
  /** Also accept a panel whose clock runs on local time instead of UTC. */
  acceptLocalTime: boolean;
  /** The panel's local offset from UTC in minutes (east positive); without it any 15-minute offset up to ±14 h. */
  localOffsetMinutes?: number;
}

export type WindowResult = { ok: true; deviceTime: number; offsetMinutes: number } | { ok: false };

/** The time test's default window, the standard's (§5.5.1.8): 40 s into the past, 20 s into the future. */
export const DEFAULT_WINDOW_PAST_S = 40;
export const DEFAULT_WINDOW_FUTURE_S = 20;

const QUARTER_HOUR_S = 15 * 60;
const MAX_OFFSET_S = 14 * 3600;

/**
 * Compares whole seconds: the timestamp has one-second resolution, so `now` is truncated too
 * (a message stamped exactly 40 s ago is accepted, 41 s is not). On success deviceTime is the UTC time.
 */
export function checkWindow(deviceStamp: number, now: number, w: TimeWindow): WindowResult {
  const diff = Math.floor(deviceStamp / 1000) - Math.floor(now / 1000);
  // The common case first, without allocating the closure below.
  if (diff >= -w.windowPastS && diff <= w.windowFutureS) return { ok: true, deviceTime: deviceStamp, offsetMinutes: 0 };
  if (!w.acceptLocalTime) return { ok: false };
  const inside = (d: number): boolean => d >= -w.windowPastS && d <= w.windowFutureS;
  if (w.localOffsetMinutes !== undefined) {
    const offsetS = w.localOffsetMinutes * 60;
    return inside(diff - offsetS)
      ? { ok: true, deviceTime: deviceStamp - offsetS * 1000, offsetMinutes: w.localOffsetMinutes }
      : { ok: false };
  }
  // Unknown zone: take the nearest quarter-hour offset and test the remainder.
  const offsetS = Math.round(diff / QUARTER_HOUR_S) * QUARTER_HOUR_S;
  if (Math.abs(offsetS) > MAX_OFFSET_S || !inside(diff - offsetS)) return { ok: false };
  return { ok: true, deviceTime: deviceStamp - offsetS * 1000, offsetMinutes: offsetS / 60 };
}
