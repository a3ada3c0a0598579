/**
 * Why the gateway's last run ended, kept on the data partition (`last-run.json`), because the journal is
 * in RAM and says nothing after a reboot (docs/watchdog.md "Why the last run ended"). Three writers, each
 * at one moment: the gateway marks its run `running` at start and `ended: clean stop` at a clean stop;
 * systemd's ExecStopPost (`vigil record-stop`) ends a run that is still `running` with what systemd saw
 * (SERVICE_RESULT, EXIT_CODE, EXIT_STATUS: systemd.exec(5)); a run still `running` at the next start
 * was cut by a power loss or a reset (another boot) or killed unseen (the same boot). A unit run that ends
 * before the gateway marked it (a start that fails: the code, its settings or its unit) is recorded by
 * `vigil record-stop` too, as a run that never started: systemd's invocation id tells it from the
 * gateway's last marked run. Each end keeps the system slot it ran on, so the gateway on the other slot
 * can tell what happened on a slot it rolled back from (src/update/rollback-cause.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';

export type RunEnd = 'clean stop' | 'watchdog' | 'crash' | 'killed' | 'timeout' | 'power loss or reset' | 'unknown';

/** One ended run, in the history the start limit and a rollback's cause are read from. */
export interface EndedRun {
  readonly at: number;
  readonly how: RunEnd;
  /** The system slot (`A`, `B`) it ran on; null off an A/B box or in records older than this field. */
  readonly slot?: string | null;
  readonly boot_id?: string;
  /** False for a unit run that ended before the gateway marked it running. */
  readonly started?: boolean;
  readonly detail?: string;
}

export interface RunRecord {
  readonly state: 'running' | 'ended';
  readonly boot_id: string;
  readonly pid: number;
  /** systemd's INVOCATION_ID of the run the gateway marked; null outside systemd. */
  readonly invocation?: string | null;
  readonly slot?: string | null;
  readonly started_at: number;
  readonly ended_at: number | null;
  readonly how: RunEnd | null;
  readonly detail: string | null;
  /** The ends of the last runs, oldest first, at most RECENT_ENDS: the start limit is read from them. */
  readonly recent_ends: ReadonlyArray<EndedRun>;
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
// A gateway that never starts fails 5 times a boot (the start limit) for 3 boots (U-Boot's tries).
const RECENT_ENDS = 20;
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

export interface RunStart {
  readonly bootId: string;
  readonly pid: number;
  readonly now: number;
  readonly invocation?: string | null;
  readonly slot?: string | null;
}

export function startedRun(previous: RunRecord | null, run: RunStart): RunRecord {
  // A run still marked running never got its end written: it ends in the history now, as it is told.
  const cut = previous?.state === 'running' ? previousRun(previous, run.bootId) : null;
  const recent = cut
    ? [...previous!.recent_ends, endOf(previous!, cut.how, cut.detail, cut.at, true)].slice(-RECENT_ENDS)
    : (previous?.recent_ends ?? []);
  return {
    state: 'running',
    boot_id: run.bootId,
    pid: run.pid,
    invocation: run.invocation ?? null,
    slot: run.slot ?? null,
    started_at: run.now,
    ended_at: null,
    how: null,
    detail: null,
    recent_ends: recent,
  };
}

function endOf(record: RunRecord, how: RunEnd, detail: string, at: number, started: boolean): EndedRun {
  return { at, how, slot: record.slot ?? null, boot_id: record.boot_id, started, detail };
}

export function endedRun(record: RunRecord, how: RunEnd, detail: string, now: number): RunRecord {
  const recent = [...record.recent_ends, endOf(record, how, detail, now, true)].slice(-RECENT_ENDS);
  return { ...record, state: 'ended', ended_at: now, how, detail, recent_ends: recent };
}

/**
 * A unit run that ended before the gateway marked it (its start failed): the record becomes that run,
 * ended, and the history gets it as never started.
 */
export function failedStart(
  previous: RunRecord | null,
  run: RunStart & { readonly how: RunEnd; readonly detail: string },
): RunRecord {
  const record: RunRecord = {
    ...startedRun(previous, run),
    state: 'ended',
    pid: 0,
    ended_at: run.now,
    how: run.how,
    detail: `the gateway never started: ${run.detail}`,
  };
  const recent = [...record.recent_ends, endOf(record, run.how, run.detail, run.now, false)].slice(-RECENT_ENDS);
  return { ...record, recent_ends: recent };
}

/** The ended runs of the history (the run under way, if any, is not among them). */
export function endedRuns(record: RunRecord | null): readonly EndedRun[] {
  return record?.recent_ends ?? [];
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
  const failures = record.recent_ends.filter(
    (e) => e.how !== 'clean stop' && e.how !== 'power loss or reset' && last.at - e.at < START_LIMIT_INTERVAL_MS,
  );
  return failures.length >= START_LIMIT_BURST;
}

/** One line for the status view and the `gateway_started` event. */
export function describePreviousRun(run: PreviousRun): string {
  return `${run.how}: ${run.detail} (${new Date(run.at).toISOString()})${run.rebooted ? '; the box rebooted since' : ''}`;
}
