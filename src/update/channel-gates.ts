/**
 * When a box may install (and reboot into) an update from its channel (docs/updates.md "When a box
 * installs"), pure: the local maintenance window, and the box's own business first — never while an
 * output still owes the central station events (a backlog, or an output down), never within
 * ALARM_QUIET_MINUTES of an alarm. A reboot takes the receivers away for a minute or two; a panel
 * retries, but an alarm being handled right now should not meet a box that goes away.
 */
export const ALARM_QUIET_MINUTES = 10;

export interface Window {
  /** Local `HH:MM`; start = end is the whole day. An end before the start runs past midnight. */
  readonly start: string;
  readonly end: string;
}

export interface GateFacts {
  readonly now: number;
  /** Minutes since local midnight at `now`. */
  readonly localMinutes: number;
  readonly window: Window;
  /** Outputs with undelivered events or down, by name. */
  readonly outputsBehind: readonly string[];
  /** When the newest alarm arrived (ms), null when none is known. */
  readonly lastAlarmAt: number | null;
}

export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
}

export function inWindow(window: Window, localMinutes: number): boolean {
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  if (start === end) return true;
  return start < end ? localMinutes >= start && localMinutes < end : localMinutes >= start || localMinutes < end;
}

/** Null when the box may go ahead; otherwise why it waits, as the System view says it. */
export function gateClosed(facts: GateFacts): string | null {
  if (!inWindow(facts.window, facts.localMinutes))
    return `outside the maintenance window ${facts.window.start}–${facts.window.end}`;
  if (facts.outputsBehind.length > 0) return `output ${facts.outputsBehind.join(', ')} has undelivered events`;
  if (facts.lastAlarmAt !== null) {
    const quietMs = ALARM_QUIET_MINUTES * 60_000;
    const since = facts.now - facts.lastAlarmAt;
    if (since < quietMs)
      return `an alarm ${Math.max(0, Math.floor(since / 60_000))} min ago: waiting for ${ALARM_QUIET_MINUTES} quiet minutes`;
  }
  return null;
}
