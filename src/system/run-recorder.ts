/**
 * Marks the gateway's run in `last-run.json` (src/system/run-record.ts) and reports how the previous run
 * ended as the `last-run` health component, which the Status view, `vigil status` and GET /api/status
 * list; `gateway_started` carries the same line into the journal (docs/watchdog.md "Why the last run ended").
 */
import { readFileSync } from 'node:fs';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import {
  describePreviousRun,
  endedRun,
  endFromSystemd,
  failedStart,
  previousRun,
  readRunRecord,
  runRecordPath,
  startedRun,
  writeRunRecord,
  type PreviousRun,
} from './run-record.js';

export const LAST_RUN_COMPONENT = 'last-run';

/** The kernel's id of this boot: it changes at every boot (random(4)). */
export function currentBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

export interface RunRecorderDeps {
  readonly dataDir: string;
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly bootId?: () => string;
  /** The system slot this run is on (`rauc.slot=` on the kernel command line), null off an A/B box. */
  readonly slot?: () => string | null;
  /** systemd's INVOCATION_ID of this run (process.env by default). */
  readonly invocation?: string | null;
}

export class RunRecorder implements Service {
  readonly name = LAST_RUN_COMPONENT;
  private readonly deps: RunRecorderDeps;
  private previous: PreviousRun | null = null;
  private marked = false;

  constructor(deps: RunRecorderDeps) {
    this.deps = deps;
  }

  /** How the previous run ended, as one line; null on the first start of this data dir. */
  previousRunLine(): string | null {
    return this.previous ? describePreviousRun(this.previous) : null;
  }

  async start(): Promise<void> {
    const path = runRecordPath(this.deps.dataDir);
    const bootId = (this.deps.bootId ?? currentBootId)();
    const record = readRunRecord(path);
    this.previous = previousRun(record, bootId);
    const line = this.previousRunLine();
    const metrics: Record<string, string | number | boolean> = this.previous
      ? { how: this.previous.how, at: this.previous.at, rebooted: this.previous.rebooted }
      : {};
    this.deps.health.report(LAST_RUN_COMPONENT, 'system', 'ok', line ?? 'first start of this data dir', metrics);
    if (this.previous && this.previous.how !== 'clean stop')
      this.deps.logger.warn('the previous run did not stop cleanly', { previous: line });
    try {
      writeRunRecord(
        path,
        startedRun(record, {
          bootId,
          pid: process.pid,
          now: this.deps.clock.now(),
          invocation: this.deps.invocation ?? process.env.INVOCATION_ID ?? null,
          slot: this.deps.slot?.() ?? null,
        }),
      );
      this.marked = true;
    } catch (err) {
      // Losing this record costs a diagnosis, never the service.
      this.deps.logger.warn('cannot write the run record', { path, error: describeError(err) });
    }
  }

  async stop(): Promise<void> {
    this.deps.health.remove(LAST_RUN_COMPONENT);
    if (!this.marked) return;
    this.marked = false;
    const path = runRecordPath(this.deps.dataDir);
    const record = readRunRecord(path);
    if (record === null || record.state !== 'running' || record.pid !== process.pid) return;
    try {
      writeRunRecord(path, endedRun(record, 'clean stop', 'stopped cleanly', this.deps.clock.now()));
    } catch (err) {
      this.deps.logger.warn('cannot write the run record', { path, error: describeError(err) });
    }
  }
}

/**
 * `vigil record-stop`, systemd's ExecStopPost: ends a run the gateway left `running` with what systemd
 * saw; a unit run the gateway never marked (another INVOCATION_ID: its start failed before it could)
 * is recorded as a run that never started. Returns the line it logs.
 */
export function recordStop(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  now: number,
  run: { readonly bootId: string; readonly slot: string | null },
): string {
  const path = runRecordPath(dataDir);
  const record = readRunRecord(path);
  const { how, detail } = endFromSystemd(env);
  const invocation = env.INVOCATION_ID ?? null;
  const marked = record !== null && invocation !== null && record.invocation === invocation;
  if (invocation !== null && !marked) {
    writeRunRecord(
      path,
      failedStart(record, { bootId: run.bootId, pid: 0, now, invocation, slot: run.slot, how, detail }),
    );
    return `record-stop: the gateway never started: ${how}: ${detail}`;
  }
  if (record === null || record.state !== 'running') return 'record-stop: the run was already recorded as ended';
  writeRunRecord(path, endedRun(record, how, detail, now));
  return `record-stop: ${how}: ${detail}`;
}
