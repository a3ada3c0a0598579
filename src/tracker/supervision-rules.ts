/**
 * Pure supervision arithmetic (docs/supervision.md). Times in ms unless named `_s`/`S`.
 */
import type { TrackerSettings } from '../settings/schema.js';

/** The tracker-section values that apply to one object (SMS objects use the sms_* ones). */
export interface SupervisionParams {
  readonly multiplier: number;
  readonly toleranceS: number;
  readonly restoreCount: number;
}

export function paramsFor(settings: TrackerSettings, sms: boolean): SupervisionParams {
  return sms
    ? {
        multiplier: settings.sms_timeout_multiplier,
        toleranceS: settings.sms_timeout_tolerance,
        restoreCount: settings.event_count_for_restore_sms,
      }
    : {
        multiplier: settings.timeout_multiplier,
        toleranceS: settings.timeout_tolerance,
        restoreCount: settings.event_count_for_restore,
      };
}

/** How long an object may stay silent: period × multiplier + tolerance. */
export function timeoutMs(periodS: number, params: SupervisionParams): number {
  return (periodS * params.multiplier + params.toleranceS) * 1000;
}

/** Lost when the silence is LONGER than the timeout: at exactly the timeout it is still fine. */
export function isOverdue(now: number, heardAt: number, timeout: number): boolean {
  return now - heardAt > timeout;
}

export interface RestartInput {
  /** Wall time the object was last heard as stored (last_seen). */
  readonly lastSeen: number;
  /**
   * How far the stored last_seen may lag what the previous run heard: 0 when it wrote every
   * sighting as it stopped, else the sightings sweep's bound (SEEN_MAX_LAG_MS).
   */
  readonly lastSeenLagMs: number;
  readonly periodS: number;
  readonly params: SupervisionParams;
  /** Wall time the previous run was last known to be supervising (meta checkpoint), or null. */
  readonly aliveAt: number | null;
  /** Wall time the previous run started supervising, or null. */
  readonly previousRunStart: number | null;
}

/**
 * How long after the gateway start an object that was supervised (not lost) when the previous
 * run ended may stay silent (docs/supervision.md §Restart). `0` means: its deadline passed while
 * the previous run was still watching, so the silence is real and it is lost now.
 *
 * The previous run's deadline for the object was lastSeen + timeout, or, when the object was not
 * heard during that run, at least the grace that run gave it (≥ one period + tolerance after its
 * start). remaining = that deadline − aliveAt: the time the object still had when the gateway was
 * last seen alive. It gets that remaining time counted from this start, but at least one period
 * plus the tolerance (a live device is heard within that, even though its messages during the
 * downtime were lost) and never more than its full timeout (a clock stepped back cannot extend
 * it). Without a checkpoint (first run, or meta lost) every object gets its full timeout.
 *
 * The stored last_seen may lag by up to `lastSeenLagMs` (a crash before the sightings sweep): the
 * deadline is counted from lastSeen + lag, so a device heard before the crash is never taken
 * for silent, and one that really went silent is reported at most that lag later.
 */
export function restartGraceMs(input: RestartInput): number {
  const timeout = timeoutMs(input.periodS, input.params);
  if (input.aliveAt === null) return timeout;
  const minimum = Math.min(timeout, (input.periodS + input.params.toleranceS) * 1000);
  let deadline = input.lastSeen + input.lastSeenLagMs + timeout;
  if (input.previousRunStart !== null) deadline = Math.max(deadline, input.previousRunStart + minimum);
  const remaining = deadline - input.aliveAt;
  // At exactly the deadline an object is not overdue yet (isOverdue is strict).
  if (remaining < 0) return 0;
  return Math.min(timeout, Math.max(remaining, minimum));
}
