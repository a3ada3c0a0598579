/**
 * Pure: what happened on a slot the box left (docs/updates.md "Rollback detection"), told from what that
 * slot itself left on the data partition: the gateway's runs on it (`last-run.json`, each end with its
 * slot, src/system/run-record.ts) since the install, and the trial timer's words
 * (`rollback-reason.json`, src/update/rollback-reason.ts). Runs on other slots are never part of it.
 *   - never started: every run on the slot ended before the gateway ran (a start that fails), or none
 *     was recorded at all (the kernel or the system stopped earlier);
 *   - started, never confirmed: the gateway ran but did not stay healthy for its grace period; the
 *     trial timer gave up on it (its words), or its boot tries ran out;
 *   - confirmed, then failed: the slot was confirmed and later stopped booting.
 * Then how the box came back: the trial timer, or U-Boot when the slot's tries ran out.
 */
import type { EndedRun } from '../system/run-record.js';
import type { SlotName } from './boot-state.js';
import type { RollbackReason } from './rollback-reason.js';

export interface SlotHistory {
  /** The slot the box left and the version installed in it. */
  readonly slot: SlotName;
  readonly version: string;
  readonly booted: SlotName;
  /** The install's time (ms): runs before it belong to what the slot held earlier. */
  readonly since: number;
  readonly confirmed: boolean;
  /** Every ended run the record keeps, any slot. */
  readonly runs: readonly EndedRun[];
  /** The trial timer's words about this slot, or null. */
  readonly trial: RollbackReason | null;
  /** The slot's tries left in the boot state (0: spent), null when unknown. */
  readonly triesLeft: number | null;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The distinct details of some runs, most frequent first, at most three. */
function details(runs: readonly EndedRun[]): string {
  const counts = new Map<string, number>();
  for (const run of runs) {
    const text = run.detail ?? run.how;
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([text]) => text)
    .join('; ');
}

export function rollbackCause(history: SlotHistory): string {
  const { slot, booted } = history;
  const runs = history.runs.filter((r) => r.slot === slot && r.at >= history.since);
  const boots = new Set(runs.map((r) => r.boot_id ?? '')).size;
  const started = runs.filter((r) => r.started !== false);
  const head = `version ${history.version} in slot ${slot}`;
  let what: string;
  if (history.confirmed) {
    const last = started.at(-1) ?? runs.at(-1);
    what = `${head} was confirmed, then failed${last ? `: its last run ${last.how}: ${last.detail ?? last.how}` : ''}`;
  } else if (runs.length > 0 && started.length === 0) {
    what = `${head} never started the gateway: ${plural(runs.length, 'run')} over ${plural(boots, 'boot')}, each ended before the gateway ran (${details(runs)})`;
  } else if (runs.length === 0) {
    what = `${head} never started the gateway: no run of it was recorded on that slot (the kernel or the system stopped before it)`;
  } else {
    const last = started.at(-1)!;
    what = `${head} ran the gateway but it was never confirmed healthy (last run ${last.how}: ${last.detail ?? last.how})`;
  }
  if (history.trial) {
    const at = history.trial.at ? ` (${history.trial.at})` : '';
    return `${what}; the trial timer marked ${slot} bad and rebooted into ${booted}: ${history.trial.reason}${at}`;
  }
  if (history.triesLeft === 0) return `${what}; the box returned to slot ${booted} after ${slot}'s boot tries ran out`;
  return `${what}; the box booted slot ${booted} again`;
}
