/**
 * The record of the last system update, on the data partition (`<dataDir>/update/state.json`), so it
 * survives the slot switch and a rollback (docs/updates.md "The record"). Written atomically; owned by
 * the data dir's owner even when `vigil update install` runs as root.
 */
import { chownSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';
import type { SlotName } from './boot-state.js';

export type InstallOutcome = 'pending' | 'confirmed' | 'rolled_back';
/** The internal events a record has been journaled for, so each is journaled once. */
export type UpdateEventType = 'update_installed' | 'update_activated' | 'update_confirmed' | 'update_rolled_back';

export interface InstallRecord {
  readonly from_version: string;
  readonly to_version: string;
  /** The slot the bundle was written to. */
  readonly slot: SlotName;
  readonly installed_at: string;
  /** The kernel's boot id when it was installed: a later boot id means the box rebooted since. */
  readonly boot_id: string;
  readonly outcome: InstallOutcome;
  /** Why it was rolled back (or confirmed); null while pending. */
  readonly reason: string | null;
  readonly journaled: readonly UpdateEventType[];
  /** When a technician acknowledged a rollback; null until then. */
  readonly acknowledged_at: string | null;
}

export interface UpdateRecord {
  readonly install: InstallRecord | null;
}

export const UPDATE_DIR = 'update';
export const RECORD_FILE = 'state.json';
export const INCOMING_FILE = 'incoming.raucb';

export function updateDir(dataDir: string): string {
  return join(dataDir, UPDATE_DIR);
}

function isInstall(value: unknown): value is InstallRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.to_version === 'string' &&
    typeof v.from_version === 'string' &&
    (v.slot === 'A' || v.slot === 'B') &&
    (v.outcome === 'pending' || v.outcome === 'confirmed' || v.outcome === 'rolled_back')
  );
}

/** The record, or an empty one when there is none or it is unreadable (it is a report, not a control). */
export function readUpdateRecord(dataDir: string): UpdateRecord {
  try {
    const parsed = JSON.parse(readFileSync(join(updateDir(dataDir), RECORD_FILE), 'utf8')) as { install?: unknown };
    if (!isInstall(parsed.install)) return { install: null };
    const install = parsed.install;
    return {
      install: {
        ...install,
        boot_id: typeof install.boot_id === 'string' ? install.boot_id : '',
        reason: typeof install.reason === 'string' ? install.reason : null,
        journaled: Array.isArray(install.journaled) ? install.journaled : [],
        acknowledged_at: typeof install.acknowledged_at === 'string' ? install.acknowledged_at : null,
      },
    };
  } catch {
    return { install: null };
  }
}

/** The data dir's owner: files made by root (`vigil update install`) stay writable by the gateway. */
export function dataDirOwner(dataDir: string): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const stats = statSync(dataDir);
  return { uid: stats.uid, gid: stats.gid };
}

export function ensureUpdateDir(dataDir: string): string {
  const dir = updateDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const owner = dataDirOwner(dataDir);
  if (owner && statSync(dir).uid !== owner.uid) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

export function writeUpdateRecord(dataDir: string, record: UpdateRecord): void {
  const dir = ensureUpdateDir(dataDir);
  const owner = dataDirOwner(dataDir);
  writeFileAtomic(join(dir, RECORD_FILE), `${JSON.stringify(record)}\n`, 0o600, owner ? { owner } : {});
}

/** Whether the last install was rolled back and nobody has acknowledged it yet. */
export function rollbackUnacknowledged(record: UpdateRecord): boolean {
  return record.install?.outcome === 'rolled_back' && record.install.acknowledged_at === null;
}
