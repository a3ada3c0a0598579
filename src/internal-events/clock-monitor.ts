/**
 * Clock trouble detection (docs/internal-events.md §Clock). A Pi has no battery-backed clock: it
 * boots with the time of its last shutdown (fake-hwclock) or 1970, and NTP steps it later. Event
 * times, the DC-09 time window and token expiry all depend on the wall clock, so Vigil reports:
 *
 * - `clock_trouble` when the wall clock is before a plausible floor (the release's floor date), or
 *   when it stepped by more than `jumpThresholdMs` against the monotonic clock between two checks;
 * - `clock_restored` once the clock is past the floor and has run steadily (no step) for
 *   `steadyMs`. A step that moves a clock from before the floor to after it is the correction
 *   NTP makes at boot, not a new trouble: it does not restart the steady period.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { TimerApi } from '../protocols/device-link/command-queue.js';
import type { RaiseInternalEvent } from './recorder.js';

/** No legitimate wall time of a running Vigil is before this (the first release year). */
export const DEFAULT_CLOCK_FLOOR = Date.UTC(2026, 0, 1);
export const DEFAULT_CHECK_INTERVAL_MS = 10_000;
/** A step smaller than this is NTP slewing or timer jitter, not trouble. */
export const DEFAULT_JUMP_THRESHOLD_MS = 60_000;
export const DEFAULT_STEADY_MS = 10 * 60_000;

export interface ClockMonitorDeps {
  readonly clock: Clock;
  /** Milliseconds from any origin that never steps (performance.now in production). */
  readonly monotonic: () => number;
  readonly timers: TimerApi;
  readonly raise: RaiseInternalEvent;
  readonly logger: Logger;
  readonly floorMs?: number;
  readonly checkIntervalMs?: number;
  readonly jumpThresholdMs?: number;
  readonly steadyMs?: number;
}

export class ClockMonitor implements Service {
  readonly name = 'internal-events:clock';
  private readonly deps: ClockMonitorDeps;
  private readonly floor: number;
  private readonly interval: number;
  private readonly threshold: number;
  private readonly steady: number;
  private last: { wall: number; mono: number } | null = null;
  /** Monotonic time of the last step that counts as trouble. */
  private lastStepAt: number | null = null;
  private trouble = false;
  private timer: unknown = null;
  private running = false;

  constructor(deps: ClockMonitorDeps) {
    this.deps = deps;
    this.floor = deps.floorMs ?? DEFAULT_CLOCK_FLOOR;
    this.interval = deps.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS;
    this.threshold = deps.jumpThresholdMs ?? DEFAULT_JUMP_THRESHOLD_MS;
    this.steady = deps.steadyMs ?? DEFAULT_STEADY_MS;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.check();
    this.arm();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) this.deps.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  inTrouble(): boolean {
    return this.trouble;
  }

  /** One observation; the timer calls it every check interval. */
  check(): void {
    const wall = this.deps.clock.now();
    const mono = this.deps.monotonic();
    const previous = this.last;
    this.last = { wall, mono };
    if (previous) {
      const step = wall - previous.wall - (mono - previous.mono);
      const correction = previous.wall < this.floor && wall >= this.floor;
      if (Math.abs(step) > this.threshold && !correction) {
        this.lastStepAt = mono;
        this.enterTrouble(`clock stepped by ${Math.round(step / 1000)} s`);
        return;
      }
    }
    if (wall < this.floor) {
      this.enterTrouble(`clock ${new Date(wall).toISOString()} is before ${new Date(this.floor).toISOString()}`);
      return;
    }
    const steadySince = this.lastStepAt ?? -Infinity;
    if (this.trouble && mono - steadySince >= this.steady) {
      this.trouble = false;
      this.deps.logger.info('clock restored');
      void this.deps.raise('clock_restored');
    }
  }

  private enterTrouble(detail: string): void {
    this.deps.logger.warn('clock trouble', { detail });
    if (this.trouble) return;
    this.trouble = true;
    void this.deps.raise('clock_trouble', { detail });
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.deps.timers.setTimeout(() => {
      this.timer = null;
      this.check();
      this.arm();
    }, this.interval);
  }
}
