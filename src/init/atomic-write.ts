/**
 * Atomic file writes: write a temp file, fsync it, rename over the target, fsync the directory.
 * On an SD card a half-written key or password file is a box nobody can log in to.
 *
 * Safe in a directory another user can write to (first boot runs as root over the `vigil` user's data
 * dir, docs/security.md "First boot runs as root"): the temp file has a random name and is created with
 * O_CREAT|O_EXCL|O_NOFOLLOW, so neither a symlink nor a file planted at that name is ever opened; mode
 * and owner are set on the open descriptor (fchmod, fchown), never by a path that could be swapped;
 * rename(2) replaces whatever is at the target, a symlink included, without following it.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Owner of the new file, set with fchown before it takes the target's name (root only). */
  readonly owner?: { readonly uid: number; readonly gid: number };
  /** The temp file's name in the target's directory; random unless a test needs to plant something there. */
  readonly tempName?: (target: string) => string;
}

const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export function randomTempName(target: string): string {
  return `.${basename(target)}.${randomBytes(12).toString('hex')}.tmp`;
}

export function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  mode: number,
  options: AtomicWriteOptions = {},
): void {
  const dir = dirname(path);
  const temp = join(dir, (options.tempName ?? randomTempName)(path));
  // EEXIST or ELOOP here means something already sits at a fresh random name: refuse, never reuse it.
  const fd = openSync(temp, CREATE_EXCLUSIVE, mode & 0o777);
  try {
    try {
      fchmodSync(fd, mode & 0o777); // the umask narrowed the mode given to open
      if (options.owner) fchownSync(fd, options.owner.uid, options.owner.gid);
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    // unlink(2) never follows the final component: at worst it removes what replaced our temp file.
    try {
      unlinkSync(temp);
    } catch {
      // already renamed or gone
    }
    throw err;
  }
  fsyncDirectory(dir);
}

/** Makes a rename or unlink in `dir` durable. O_DIRECTORY: a non-directory there is refused. */
export function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems (FAT on older kernels) refuse fsync on a directory; the rename stands.
  } finally {
    closeSync(fd);
  }
}
