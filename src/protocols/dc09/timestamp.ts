/**
 * DC-09 timestamps (SIA DC-09-2013 §5.5.1.8): "_HH:MM:SS,MM-DD-YYYY", always UTC (GMT). The receiver's time test
 * (§5.5.1.8, §5.5.3.2) accepts a message whose timestamp lies within [now - 40 s, now + 20 s].
 */
const TEXT_RE = /^(\d{2}):(\d{2}):(\d{2}),(\d{2})-(\d{2})-(\d{4})$/;

/** Milliseconds since the epoch for "HH:MM:SS,MM-DD-YYYY" read as UTC, or null when not a real date/time. */
export function parseTimestamp(text: string): number | null {
  const m = TEXT_RE.exec(text);
  if (!m) return null;
  const [hh, mi, ss, mo, dd, yyyy] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  if (hh > 23 || mi > 59 || ss > 59 || mo < 1 || mo > 12 || dd < 1 || yyyy < 1970) return null;
  const ms = Date.UTC(yyyy, mo - 1, dd, hh, mi, ss);
  // Reject 02-31 and the like instead of letting Date roll over into the next month.
  if (new Date(ms).getUTCDate() !== dd) return null;
  return ms;
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

const QUARTER_HOUR_S = 15 * 60;
const MAX_OFFSET_S = 14 * 3600;

/**
 * Compares whole seconds: the timestamp has one-second resolution, so `now` is truncated too
 * (a message stamped exactly 40 s ago is accepted, 41 s is not). On success deviceTime is the UTC time.
 */
export function checkWindow(deviceStamp: number, now: number, w: TimeWindow): WindowResult {
  const diff = Math.floor(deviceStamp / 1000) - Math.floor(now / 1000);
  const inside = (d: number): boolean => d >= -w.windowPastS && d <= w.windowFutureS;
  if (inside(diff)) return { ok: true, deviceTime: deviceStamp, offsetMinutes: 0 };
  if (!w.acceptLocalTime) return { ok: false };
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
