/**
 * Pure: what the last install's record becomes at a start of the gateway (docs/updates.md "States").
 *   pending, booted into its slot             -> activated (still pending until confirmed)
 *   pending, booted into the other slot, the box rebooted since the install
 *                                              -> rolled_back: the boot loader gave up on the new slot
 *   pending, other slot, same boot             -> unchanged: installed, waiting for the reboot
 * A rollback's reason adds what the image's trial timer wrote before it gave up on the slot
 * (src/update/rollback-reason.ts), when it is about that slot.
 * Each transition names the internal event it owes; the monitor journals it once and notes it.
 */
import type { SlotName } from './boot-state.js';
import type { RollbackReason } from './rollback-reason.js';
import type { InstallRecord, UpdateEventType } from './update-record.js';

export interface StartFacts {
  readonly booted: SlotName;
  readonly bootId: string;
  /** How the previous run of the gateway ended (docs/watchdog.md), when known. */
  readonly previousRun: string | null;
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
  if (record.outcome === 'pending' && facts.booted !== record.slot && facts.bootId !== record.boot_id) {
    const tries = facts.triesLeft === 0 ? ' after its boot tries ran out' : '';
    const timer = trialReasonFor(record.slot, facts.trialReason);
    const trial = timer ? `; trial timer: ${timer}` : '';
    const last = facts.previousRun ? `; last run: ${facts.previousRun}` : '';
    next = {
      ...record,
      outcome: 'rolled_back',
      reason: `the box booted slot ${facts.booted} again instead of ${record.slot} (version ${record.to_version})${tries}${trial}${last}`,
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
