/**
 * Pure: what the last install's record becomes at a start of the gateway (docs/updates.md "States").
 *   pending, booted into its slot             -> activated (still pending until confirmed)
 *   pending, booted into the other slot, the box rebooted since the install
 *                                              -> rolled_back: the boot loader gave up on the new slot
 *   pending, other slot, same boot             -> unchanged: installed, waiting for the reboot
 *   confirmed, booted into the other slot at a later boot
 *                                              -> rolled_back: the confirmed slot stopped booting
 * A rollback's reason tells what happened on the slot the box left (src/update/rollback-cause.ts): the
 * gateway's runs on that slot and what the image's trial timer wrote before it gave up on it.
 * Each transition names the internal event it owes; the monitor journals it once and notes it.
 */
import type { EndedRun } from '../system/run-record.js';
import type { SlotName } from './boot-state.js';
import { rollbackCause } from './rollback-cause.js';
import type { RollbackReason } from './rollback-reason.js';
import type { InstallRecord, UpdateEventType } from './update-record.js';

export interface StartFacts {
  readonly booted: SlotName;
  readonly bootId: string;
  /** The gateway's ended runs, every slot (`last-run.json`, docs/watchdog.md). */
  readonly runs: readonly EndedRun[];
  readonly triesLeft: number | null;
  /** What the trial timer left in `system/rollback-reason.json`, if anything. */
  readonly trialReason?: RollbackReason | null;
}

export interface Transition {
  readonly record: InstallRecord;
  /** Events owed for this record and not journaled yet, each with its detail. */
  readonly owed: readonly { readonly type: UpdateEventType; readonly detail: string }[];
}

export function atStart(record: InstallRecord, facts: StartFacts): Transition {
  let next = record;
  const left = facts.booted !== record.slot && facts.bootId !== record.boot_id;
  if (left && (record.outcome === 'pending' || record.outcome === 'confirmed')) {
    const trial = facts.trialReason;
    next = {
      ...record,
      outcome: 'rolled_back',
      reason: rollbackCause({
        slot: record.slot,
        version: record.to_version,
        booted: facts.booted,
        since: Date.parse(record.installed_at) || 0,
        confirmed: record.outcome === 'confirmed',
        runs: facts.runs,
        trial: trial && (trial.slot === null || trial.slot === record.slot) ? trial : null,
        triesLeft: facts.triesLeft,
      }),
    };
  }
  return { record: next, owed: owedEvents(next, facts.booted) };
}

/** The trial timer's words when they are about `slot` (a file naming no slot is taken as about it). */
export function trialReasonFor(slot: SlotName, reason: RollbackReason | null | undefined): string | null {
  if (!reason || (reason.slot !== null && reason.slot !== slot)) return null;
  return reason.at ? `${reason.reason} (${reason.at})` : reason.reason;
}

/** The events this record's state calls for, minus those already journaled. */
export function owedEvents(record: InstallRecord, booted: SlotName): { type: UpdateEventType; detail: string }[] {
  const owed: { type: UpdateEventType; detail: string }[] = [];
  const add = (type: UpdateEventType, detail: string): void => {
    if (!record.journaled.includes(type)) owed.push({ type, detail });
  };
  add('update_installed', `${record.from_version} -> ${record.to_version} in slot ${record.slot}`);
  if (booted === record.slot) add('update_activated', `version ${record.to_version} booted in slot ${record.slot}`);
  if (record.outcome === 'confirmed') add('update_confirmed', `version ${record.to_version} in slot ${record.slot}`);
  if (record.outcome === 'rolled_back') add('update_rolled_back', record.reason ?? 'rolled back');
  return owed;
}
