/**
 * Applies a staged restore (stage-restore.ts) to the data dir, at the gateway's start before the store
 * opens (docs/backup.md "Restoring"). The replaced files go to `replaced-<time>/`, never deleted. Every
 * step is a rename and the staged directory goes last, so a power cut anywhere is finished by the next
 * start: a staged file still present has not been moved yet.
 *
 * Every session and token of the replaced data ends (docs/backup.md): tokens are signed with the JWT
 * secret, so a backup of this same box (its secret is the one the replaced data signs with) gets a new
 * secret before it is moved in. A logout or password change made after the backup was taken would
 * otherwise be undone: the backup's revocations and token epochs are older than the running ones.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../core/logger.js';
import { fsyncDirectory } from '../init/atomic-write.js';
import { newJwtSecret } from '../init/first-start.js';
import { openDatabase } from '../store/database.js';
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
  if (existsSync(stagedDb) && existsSync(storePath(dataDir)) && !existsSync(join(pending, SECRET_CHECKED))) {
    if (renewSharedSecret(storePath(dataDir), stagedDb))
      logger.warn('backup of this box restored: a new JWT secret ends every token of the replaced data');
    // Marked, so that a start cut short after the rename below does not compare the new store with itself.
    writeFileSync(join(pending, SECRET_CHECKED), '', { mode: 0o600 });
  }
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

/** Set in the staged dir once the secrets were compared (the comparison runs once, before any rename). */
const SECRET_CHECKED = 'secret-checked';

/** The api section's JWT secret of a store file; '' when it has none or cannot be read. */
function jwtSecretOf(path: string): string {
  try {
    const db = openDatabase(path, { readonly: true });
    try {
      const row = db.prepare("SELECT value FROM settings WHERE section = 'api'").get() as { value: string } | undefined;
      const secret = row ? (JSON.parse(row.value) as { api_jwt_secret?: unknown }).api_jwt_secret : undefined;
      return typeof secret === 'string' ? secret : '';
    } finally {
      db.close();
    }
  } catch {
    return '';
  }
}

/** When the staged store signs with the running store's secret, it gets a new one; true when it did. */
function renewSharedSecret(running: string, staged: string): boolean {
  const secret = jwtSecretOf(staged);
  if (secret === '' || secret !== jwtSecretOf(running)) return false;
  const db = openDatabase(staged);
  try {
    const row = db.prepare("SELECT value FROM settings WHERE section = 'api'").get() as { value: string };
    const api = { ...(JSON.parse(row.value) as Record<string, unknown>), api_jwt_secret: newJwtSecret() };
    db.prepare("UPDATE settings SET value = ? WHERE section = 'api'").run(JSON.stringify(api));
    // Back to a single file: only vigil.db is moved into place.
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
  return true;
}
