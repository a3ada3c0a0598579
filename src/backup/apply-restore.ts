/**
 * Applies a staged restore (stage-restore.ts) to the data dir, at the gateway's start before the store
 * opens (docs/backup.md "Restoring"). The replaced files go to `replaced-<time>/`, never deleted. Every
 * step is a rename and the staged directory goes last, so a power cut anywhere is finished by the next
 * start: a staged file still present has not been moved yet.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../core/logger.js';
import { fsyncDirectory } from '../init/atomic-write.js';
import { ENTRY_NAMES } from './backup-entries.js';
import type { BackupHeader } from './backup-format.js';
import { PENDING_DIR, PENDING_HEADER } from './stage-restore.js';
import { STORE_FILE, storePath } from '../store/store-path.js';

/** Applies `<data>/restore-pending/` when there is one; returns its header, or null. */
export function applyPendingRestore(dataDir: string, logger: Logger, now: number): BackupHeader | null {
  const pending = join(dataDir, PENDING_DIR);
  const headerPath = join(pending, PENDING_HEADER);
  if (!existsSync(headerPath)) return null;
  const header = JSON.parse(readFileSync(headerPath, 'utf8')) as BackupHeader;
  const replaced = join(dataDir, `replaced-${new Date(now).toISOString().replace(/[:.]/g, '-')}`);
  const stagedDb = storePath(pending);
  if (existsSync(stagedDb)) {
    // The old WAL and shared-memory files go first: SQLite would replay an old WAL into the new file.
    mkdirSync(replaced, { recursive: true, mode: 0o700 });
    for (const suffix of ['-wal', '-shm', '']) {
      const current = `${storePath(dataDir)}${suffix}`;
      if (existsSync(current)) renameSync(current, `${storePath(replaced)}${suffix}`);
    }
  }
  for (const name of ENTRY_NAMES) {
    const staged = join(pending, name);
    if (!existsSync(staged)) continue;
    const target = join(dataDir, name);
    mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    if (name !== STORE_FILE && existsSync(target)) {
      mkdirSync(join(replaced, dirname(name)), { recursive: true, mode: 0o700 });
      renameSync(target, join(replaced, name));
    }
    renameSync(staged, target);
    fsyncDirectory(dirname(target));
  }
  rmSync(pending, { recursive: true, force: true });
  fsyncDirectory(dataDir);
  logger.warn('backup restored', {
    instance_id: header.instance_id,
    instance_name: header.instance_name,
    created_at: header.created_at,
    from_version: header.app_version,
    journal: header.journal,
    replaced_files: replaced,
  });
  return header;
}
