/**
 * Why the gateway's last run ended, kept on the data partition (`last-run.json`), because the journal is
 * in RAM and says nothing after a reboot (docs/watchdog.md "Why the last run ended"). Three writers, each
 * at one moment: the gateway marks its run `running` at start and `ended: clean stop` at a clean stop;
 * systemd's ExecStopPost (`vigil record-stop`) ends a run that is still `running` with what systemd saw
 * (SERVICE_RESULT, EXIT_CODE, EXIT_STATUS: systemd.exec(5)); a run still `running` at the next start
 * was cut by a power loss or a reset (another boot) or killed unseen (the same boot).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';

export type RunEnd = 'clean stop' | 'watchdog' | 'crash' | 'killed' | 'timeout' | 'power loss or reset' | 'unknown';

export interface RunRecord {
  readonly state: 'running' | 'ended';
  readonly boot_id: string;
  readonly pid: number;
  readonly started_at: number;
  readonly ended_at: number | null;
  readonly how: RunEnd | null;
  readonly detail: string | null;
  /** The ends of the last runs, oldest first, at most RECENT_ENDS: the start limit is read from them. */
  readonly recent_ends: ReadonlyArray<{ readonly at: number; readonly how: RunEnd }>;
}

/** The previous run as the next start tells it (status view, `gateway_started`). */
export interface PreviousRun {
  readonly how: RunEnd;
  readonly detail: string;
  /** When it ended; its start when the end is unknown (power loss). */
  readonly at: number;
  /** The box booted since. */
  readonly rebooted: boolean;
}

export const RUN_RECORD_FILE = 'last-run.json';
const RECENT_ENDS = 10;
// systemd/vigil.service: StartLimitBurst=5 within StartLimitIntervalSec=600, then StartLimitAction=reboot.
const START_LIMIT_BURST = 5;
const START_LIMIT_INTERVAL_MS = 600_000;

export function runRecordPath(dataDir: string): string {
  return join(dataDir, RUN_RECORD_FILE);
}

/** The record, or null when there is none or it cannot be read (a first start, or a card that lost it). */
export function readRunRecord(path: string): RunRecord | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as Partial<RunRecord>;
    if (
      (value.state !== 'running' && value.state !== 'ended') ||
      typeof value.boot_id !== 'string' ||
      typeof value.started_at !== 'number'
    )
      return null;
    return {
      ended_at: null,
      how: null,
      detail: null,
      pid: 0,
      ...value,
      recent_ends: Array.isArray(value.recent_ends) ? value.recent_ends : [],
    } as RunRecord;
  } catch {
    return null;
  }
}

export function writeRunRecord(path: string, record: RunRecord): void {
  writeFileAtomic(path, `${JSON.stringify(record)}\n`, 0o600);
}

export function startedRun(previous: RunRecord | null, run: { bootId: string; pid: number; now: number }): RunRecord {
  return {
    state: 'running',
    boot_id: run.bootId,
    pid: run.pid,
    started_at: run.now,
    ended_at: null,
    how: null,
    detail: null,
    recent_ends: previous?.recent_ends ?? [],
  };
}

export function endedRun(record: RunRecord, how: RunEnd, detail: string, now: number): RunRecord {
  const recent = [...record.recent_ends, { at: now, how }].slice(-RECENT_ENDS);
  return { ...record, state: 'ended', ended_at: now, how, detail, recent_ends: recent };
}

/** What systemd tells ExecStopPost about the main process (systemd.exec(5) "$SERVICE_RESULT"). */
export function endFromSystemd(env: NodeJS.ProcessEnv): { how: RunEnd; detail: string } {
  const result = env.SERVICE_RESULT ?? '';
  const code = env.EXIT_CODE ?? '';
  const status = env.EXIT_STATUS ?? '';
  switch (result) {
    case 'success':
      return { how: 'clean stop', detail: 'stopped by systemd' };
    case 'watchdog':
      return {
        how: 'watchdog',
        detail: `killed by systemd's watchdog${status ? ` (SIG${status})` : ''}: no WATCHDOG=1 within WatchdogSec`,
      };
    case 'exit-code':
      return { how: 'crash', detail: `exited with status ${status || '?'}` };
    case 'signal':
    case 'core-dump':
      return {
        how: 'killed',
        detail: `killed by SIG${status || '?'}${result === 'core-dump' ? ' (core dumped)' : ''}`,
      };
    case 'oom-kill':
      return { how: 'killed', detail: 'killed by the kernel: out of memory' };
    case 'timeout':
      return { how: 'timeout', detail: 'did not start or stop in time' };
    default:
      return { how: 'unknown', detail: `systemd reported ${result || 'nothing'}${code ? ` (${code} ${status})` : ''}` };
  }
}

/** How the previous run ended, told at this start; null on the first start of a data dir. */
export function previousRun(record: RunRecord | null, bootId: string): PreviousRun | null {
  if (record === null) return null;
  const rebooted = record.boot_id !== bootId;
  if (record.state === 'running') {
    return rebooted
      ? {
          how: 'power loss or reset',
          detail: 'the box lost power or was reset while the gateway ran (power cut, hardware watchdog, kernel panic)',
          at: record.started_at,
          rebooted,
        }
      : {
          how: 'killed',
          detail: 'ended without a stop record (killed outside systemd)',
          at: record.started_at,
          rebooted,
        };
  }
  const how = record.how ?? 'unknown';
  let detail = record.detail ?? how;
  if (rebooted && startLimitReached(record)) {
    detail += `; ${START_LIMIT_BURST} failed runs within ${START_LIMIT_INTERVAL_MS / 60_000} minutes: systemd rebooted the box (StartLimitAction=reboot)`;
  }
  return { how, detail, at: record.ended_at ?? record.started_at, rebooted };
}

function startLimitReached(record: RunRecord): boolean {
  const last = record.recent_ends.at(-1);
  if (!last) return false;
  const failures = record.recent_ends.filter((e) => e.how !== 'clean stop' && last.at - e.at < START_LIMIT_INTERVAL_MS);
  return failures.length >= START_LIMIT_BURST;
}

/** One line for the status view and the `gateway_started` event. */
export function describePreviousRun(run: PreviousRun): string {
  return `${run.how}: ${run.detail} (${new Date(run.at).toISOString()})${run.rebooted ? '; the box rebooted since' : ''}`;
}
