/**
 * What first boot leaves in the gateway's data dir: the status file the `first-boot` health component
 * reports from, and the provisioned first account that initialiseDataDir consumes (docs/first-boot.md;
 * the account file's name, shape and reader: src/init/provisioned-admin.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';
import { trustedDirectory } from '../init/trusted-dir.js';
import { PROVISION_FILE, type ProvisionedAdmin } from '../init/provisioned-admin.js';
import type { SetupLineError } from './setup-file.js';

export const STATUS_FILE = 'first-boot-status.json';

/** `absent` is only read: images whose first boot also ran without a setup file recorded it. */
export type FirstBootOutcomeKind = 'applied' | 'rejected' | 'absent';

export interface FirstBootStatus {
  readonly outcome: FirstBootOutcomeKind;
  /** ISO 8601 time of the run. */
  readonly at: string;
  readonly applied: readonly string[];
  /** line 0: not tied to one line (e.g. the file could not be read or a write failed). */
  readonly errors: readonly SetupLineError[];
}

export function writeStatus(dataDir: string, status: FirstBootStatus): void {
  writeOwned(dataDir, STATUS_FILE, JSON.stringify(status, null, 2) + '\n', 0o644);
}

/**
 * Written by root at first boot into the data dir, which the gateway's own user owns and reads (and
 * removes the provision file from) later. That user can plant anything in the dir, so the file is made
 * by writeFileAtomic (nothing at a name it controls is followed or reused) and handed over with fchown
 * on the descriptor; the dir's path is checked first (src/init/trusted-dir.ts, docs/security.md "First boot runs as root").
 */
function writeOwned(dataDir: string, name: string, content: string, mode: number): void {
  const dir = trustedDirectory(dataDir, { serviceOwned: true });
  const owner = process.getuid?.() === 0 ? { uid: dir.uid, gid: dir.gid } : undefined;
  writeFileAtomic(join(dir.path, name), content, mode, owner ? { owner } : {});
}

export type StatusRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'ok'; readonly status: FirstBootStatus }
  | { readonly kind: 'unreadable'; readonly reason: string };

export function readStatus(dataDir: string): StatusRead {
  const path = join(dataDir, STATUS_FILE);
  if (!existsSync(path)) return { kind: 'none' };
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (!isStatus(value)) return { kind: 'unreadable', reason: `${STATUS_FILE} has an unexpected shape` };
    return { kind: 'ok', status: value };
  } catch (err) {
    return { kind: 'unreadable', reason: `${STATUS_FILE}: ${(err as Error).message}` };
  }
}

function isStatus(value: unknown): value is FirstBootStatus {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.outcome === 'applied' || v.outcome === 'rejected' || v.outcome === 'absent') &&
    typeof v.at === 'string' &&
    Array.isArray(v.applied) &&
    Array.isArray(v.errors) &&
    v.errors.every(
      (e) =>
        typeof e === 'object' &&
        e !== null &&
        typeof (e as SetupLineError).line === 'number' &&
        typeof (e as SetupLineError).message === 'string',
    )
  );
}

export function writeProvisionedAdmin(dataDir: string, admin: ProvisionedAdmin): void {
  writeOwned(dataDir, PROVISION_FILE, JSON.stringify(admin) + '\n', 0o600);
}

export function describeErrors(errors: readonly SetupLineError[]): string[] {
  return errors.map((e) => (e.line > 0 ? `line ${e.line}: ${e.message}` : e.message));
}
