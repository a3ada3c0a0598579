/**
 * The gateway's internal checks, the condition for feeding systemd's watchdog (docs/watchdog.md)
 * and for the power LED's heartbeat (docs/leds.md):
 *   - the event loop was never blocked longer than loopLagMs since the last check
 *     (perf_hooks event-loop delay; a loop blocked for good never runs a check at all);
 *   - the journal writer answered within writerStallMs (its ping round trip and any batch in
 *     flight: JournalWriter.liveness());
 *   - the store takes writes: the writer committed a batch since the last check, or else a real
 *     probe write by the writer succeeds (Store.isWritable(), awaited: the event loop turns while
 *     the writer answers). Under load the commits prove it, and the probe is not sent.
 * Every intervalMs the result goes to the health registry as component `self-check` (kind
 * `self-check`); passing() is true only while the latest result passed and is fresh, so a check
 * timer that stopped turning cannot keep the watchdog fed.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { JournalWriter } from '../writer/wire.js';

export const SELF_CHECK_HEALTH = 'self-check';

export interface SelfCheckBounds {
  readonly intervalMs: number;
  /** Longest event-loop block tolerated between two checks. */
  readonly loopLagMs: number;
  /** Longest the journal writer may leave a batch or a ping unanswered. */
  readonly writerStallMs: number;
}

/**
 * With WatchdogSec=20 (systemd/vigil.service) the watchdog is fed every 10 s: a failing check
 * withholds it, and failures for longer than 20 s get the process killed and restarted.
 */
export const DEFAULT_SELF_CHECK_BOUNDS: SelfCheckBounds = {
  intervalMs: 5_000,
  loopLagMs: 5_000,
  writerStallMs: 10_000,
};

/** A result older than this many intervals no longer counts as passing. */
const FRESH_INTERVALS = 2.5;

/** Longest event-loop delay (ms) since the last reset. */
export interface LoopDelayMeter {
  enable(): void;
  disable(): void;
  maxMs(): number;
  reset(): void;
}

export function eventLoopDelayMeter(): LoopDelayMeter {
  const histogram = monitorEventLoopDelay({ resolution: 20 });
  return {
    enable: () => histogram.enable(),
    disable: () => histogram.disable(),
    // max is in ns, and reads 0 before the first sample.
    maxMs: () => histogram.max / 1e6,
    reset: () => histogram.reset(),
  };
}

export interface SelfCheckDeps {
  readonly health: HealthRegistry;
  readonly store: { isWritable(): Promise<boolean> };
  readonly writer: Pick<JournalWriter, 'ping' | 'liveness'>;
  readonly logger: Logger;
  readonly bounds?: Partial<SelfCheckBounds>;
  readonly loopDelay?: LoopDelayMeter;
}

export interface SelfCheckResult {
  readonly failures: readonly string[];
  /** performance.now() of the check. */
  readonly at: number;
}

export class SelfCheck implements Service {
  readonly name = 'self-check';
  readonly bounds: SelfCheckBounds;
  private readonly deps: SelfCheckDeps;
  private readonly loopDelay: LoopDelayMeter;
  private timer: NodeJS.Timeout | null = null;
  private latest: SelfCheckResult | null = null;
  /** The writer's commit count at the previous check. */
  private commitsSeen: number | null = null;
  /** The check under way (its probe awaits the writer): the timer does not start another. */
  private running: Promise<SelfCheckResult> | null = null;
  private stopped = false;

  constructor(deps: SelfCheckDeps) {
    this.deps = deps;
    this.bounds = { ...DEFAULT_SELF_CHECK_BOUNDS, ...deps.bounds };
    this.loopDelay = deps.loopDelay ?? eventLoopDelayMeter();
  }

  async start(): Promise<void> {
    if (this.timer) return;
    this.stopped = false;
    this.loopDelay.enable();
    this.timer = setInterval(() => void this.run(), this.bounds.intervalMs);
    this.timer.unref();
    await this.run();
  }

  async stop(): Promise<void> {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    await this.running;
    this.loopDelay.disable();
    this.latest = null;
    this.deps.health.remove(SELF_CHECK_HEALTH);
  }

  /** True while the latest check passed and is fresh. */
  passing(): boolean {
    const latest = this.latest;
    if (!latest || latest.failures.length > 0) return false;
    return performance.now() - latest.at <= this.bounds.intervalMs * FRESH_INTERVALS;
  }

  /** For `systemctl status`: "serving", or what fails. */
  statusLine(): string {
    if (this.passing()) return 'serving';
    const failures = this.latest?.failures ?? [];
    return failures.length > 0 ? `self-check failing: ${failures.join('; ')}` : 'self-check not current';
  }

  /** Runs every check now (the timer does it every intervalMs) and reports the result. */
  run(): Promise<SelfCheckResult> {
    if (!this.running) this.running = this.check().finally(() => (this.running = null));
    return this.running;
  }

  private async check(): Promise<SelfCheckResult> {
    const { health, store, writer, logger } = this.deps;
    const failures: string[] = [];
    const lagMs = Math.round(this.loopDelay.maxMs());
    this.loopDelay.reset();
    if (lagMs > this.bounds.loopLagMs)
      failures.push(`event loop blocked for ${lagMs} ms (limit ${this.bounds.loopLagMs} ms)`);
    const liveness = writer.liveness();
    const stalledMs = Math.round(liveness.stalledMs);
    if (stalledMs > this.bounds.writerStallMs)
      failures.push(`journal writer has not answered for ${stalledMs} ms (limit ${this.bounds.writerStallMs} ms)`);
    // The next check sees whether the writer answered this one.
    writer.ping();
    const committedLately = this.commitsSeen !== null && liveness.commits > this.commitsSeen;
    this.commitsSeen = liveness.commits;
    if (!committedLately && !(await store.isWritable())) failures.push('store is not writable');
    const previous = this.latest;
    const latest: SelfCheckResult = { failures, at: performance.now() };
    if (this.stopped) return latest;
    this.latest = latest;
    const metrics = { loop_lag_ms: lagMs, writer_stalled_ms: stalledMs, last_commit_at: liveness.lastCommitAt };
    if (failures.length === 0) {
      health.report(SELF_CHECK_HEALTH, 'self-check', 'ok', null, metrics);
      if (previous && previous.failures.length > 0) logger.info('self-check passing again');
    } else {
      health.report(SELF_CHECK_HEALTH, 'self-check', 'failed', failures.join('; '), metrics);
      // One line per change of what fails, not one per interval (the figures change every time).
      if (!previous || shape(previous.failures) !== shape(failures))
        logger.error('self-check failing', { failures: failures.join('; ') });
    }
    return latest;
  }
}

function shape(failures: readonly string[]): string {
  return failures.map((f) => f.replace(/\d+/g, '#')).join('; ');
}
