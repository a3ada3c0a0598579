/**
 * The reason the image's trial timer left for the gateway on the other slot (docs/updates.md "Rollback
 * detection", docs/image.md "Confirmation and rollback"): `/usr/lib/vigil/trial-deadline` writes one JSON
 * line `{"slot":"B","reason":"…","at":"…"}` to `<dataDir>/system/rollback-reason.json` before it marks the
 * trial slot bad and reboots. The gateway reads it at its next start and, once the reason is in the
 * record, renames it to `rollback-reason.reported.json` (kept for a technician, overwritten by the next
 * one), so a reason is reported once.
 */
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { SlotName } from './boot-state.js';
import { REBOOT_REQUEST_DIR } from './reboot-request.js';

export const ROLLBACK_REASON_FILE = 'rollback-reason.json';
export const ROLLBACK_REASON_REPORTED = 'rollback-reason.reported.json';

export interface RollbackReason {
  /** The slot the timer gave up on; null when the file did not say. */
  readonly slot: SlotName | null;
  readonly reason: string;
  readonly at: string | null;
}

/** Longest reason kept: the file is written by a shell script from the data partition, not trusted. */
const MAX_REASON = 300;

export function rollbackReasonPath(dataDir: string): string {
  return join(dataDir, REBOOT_REQUEST_DIR, ROLLBACK_REASON_FILE);
}

/** The waiting reason, or null when there is none. A line that is not the expected JSON is kept as text. */
export function readRollbackReason(dataDir: string): RollbackReason | null {
  let text: string;
  try {
    text = readFileSync(rollbackReasonPath(dataDir), 'utf8').trim();
  } catch {
    return null;
  }
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v.reason === 'string' && v.reason.trim())
      return {
        slot: v.slot === 'A' || v.slot === 'B' ? v.slot : null,
        reason: v.reason.trim().slice(0, MAX_REASON),
        at: typeof v.at === 'string' ? v.at : null,
      };
  } catch {
    // not JSON: the line itself is the best account there is
  }
  return { slot: null, reason: text.replace(/\s+/g, ' ').slice(0, MAX_REASON), at: null };
}

/** Moves the reason aside once it is recorded; false when there was none (or it could not be moved). */
export function markRollbackReasonReported(dataDir: string): boolean {
  try {
    renameSync(rollbackReasonPath(dataDir), join(dataDir, REBOOT_REQUEST_DIR, ROLLBACK_REASON_REPORTED));
    return true;
  } catch {
    return false;
  }
}
