/**
 * The daily retention job as a Service (docs/retention.md): one pass shortly after start (so a
 * gateway restarted every night still gets its cleanup), then one every 24 hours counted from the
 * end of the previous pass. A failed pass is retried after an hour. The settings are read at the
 * start of every pass, so a changed age applies at the next pass without a restart.
 *
 * Health: component `retention`, kind `job`; `ok` with the last pass's figures, `degraded` with
 * the reason after a failed pass (the gateway keeps working; the SD card fills only slowly).
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { DAY_MS, runRetention, type RetentionPolicy, type RetentionReport, type RetentionStore } from './retention.js';

export const RETENTION_HEALTH = 'retention';
export const DEFAULT_INITIAL_DELAY_MS = 60_000;
export const DEFAULT_RETRY_MS = 3_600_000;

export interface RetentionJobDeps {
  readonly store: RetentionStore;
  readonly policy: () => RetentionPolicy;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly initialDelayMs?: number;
  readonly intervalMs?: number;
  readonly retryMs?: number;
  /** A pass deleted objects: whoever indexes them reads them again (the new-object admission). */
  readonly onObjectsDeleted?: () => void;
}

export class RetentionJob implements Service {
  readonly name = 'retention';
  private readonly deps: RetentionJobDeps;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<RetentionReport> | null = null;
  private stopped = true;

  constructor(deps: RetentionJobDeps) {
    this.deps = deps;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const delay = this.deps.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS;
    this.deps.health.report(RETENTION_HEALTH, 'job', 'ok', `first pass in ${Math.round(delay / 1000)} s`);
    this.schedule(delay);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // A pass under way checks `stopped` between batches; wait for it to let go of the store.
    await this.running?.catch(() => undefined);
    this.deps.health.remove(RETENTION_HEALTH);
  }

  /** Runs one pass now (or joins the one under way). Rejects when the pass failed. */
  runOnce(): Promise<RetentionReport> {
    if (!this.running) {
      this.running = this.pass().finally(() => {
        this.running = null;
      });
    }
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.runOnce().then(
        () => this.schedule(this.deps.intervalMs ?? DAY_MS),
        () => this.schedule(this.deps.retryMs ?? DEFAULT_RETRY_MS),
      );
    }, ms);
    // The job alone must not keep a stopping process alive.
    this.timer.unref();
  }

  private async pass(): Promise<RetentionReport> {
    const { logger, health, clock } = this.deps;
    const started = clock.now();
    try {
      const policy = this.deps.policy();
      const report = await runRetention(this.deps.store, policy, started, () => this.stopped);
      const figures = {
        last_run_at: started,
        events_deleted: report.eventsDeleted,
        objects_deleted: report.objectsDeleted,
        sessions_trimmed: report.sessionsTrimmed,
        keep_after_id: report.keepAfterId,
      };
      logger.info(report.interrupted ? 'retention pass interrupted by stop' : 'retention pass done', {
        ...figures,
        ms: clock.now() - started,
      });
      if (!this.stopped) health.report(RETENTION_HEALTH, 'job', 'ok', null, figures);
      if (report.objectsDeleted > 0) this.deps.onObjectsDeleted?.();
      return report;
    } catch (err) {
      const reason = describeError(err);
      logger.error('retention pass failed', { error: reason });
      if (!this.stopped) health.report(RETENTION_HEALTH, 'job', 'degraded', `last pass failed: ${reason}`);
      throw err;
    }
  }
}
