/**
 * File operations under a target root for first boot: atomic writes (a half-written network file is a box
 * nobody can reach), symlinks that enable units, removals, and destroying the setup file.
 * First boot runs as root, so every directory it writes in is checked first (src/init/trusted-dir.ts):
 * owned by root and writable by nobody else, all the way up (docs/security.md "First boot runs as root").
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { VigilError } from '../core/errors.js';
import { fsyncDirectory, writeFileAtomic } from '../init/atomic-write.js';
import { trustedDirectory } from '../init/trusted-dir.js';

export class SystemFiles {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  write(relative: string, content: string, mode = 0o644): void {
    const dir = this.directory(dirname(relative), 0o755);
    writeFileAtomic(join(dir, basename(relative)), content, mode);
  }

  mkdir(relative: string, mode: number): void {
    this.directory(relative, mode);
  }

  /** Replaces whatever is at `relative` with a symlink to `target` (an absolute path as seen on the box). */
  symlink(relative: string, target: string): void {
    const path = join(this.directory(dirname(relative), 0o755), basename(relative));
    rmSync(path, { force: true });
    symlinkSync(target, path);
  }

  remove(...relatives: string[]): void {
    for (const relative of relatives) {
      const parent = join(this.root, dirname(relative));
      if (!exists(parent)) continue;
      const path = join(trustedDirectory(parent).path, basename(relative));
      if (exists(path)) rmSync(path, { force: true });
    }
  }

  /** Checks every directory the given files go to before anything changes: a refusal applies nothing. */
  check(...relatives: string[]): void {
    for (const relative of relatives) trustedDirectory(nearestExisting(join(this.root, dirname(relative))));
  }

  /** The resolved, checked directory `relative` under the root, made (with `mode`) where it is missing. */
  private directory(relative: string, mode: number): string {
    const path = join(this.root, relative);
    const existing = nearestExisting(path);
    trustedDirectory(existing);
    if (existing !== path) mkdirSync(path, { recursive: true, mode });
    return trustedDirectory(path).path;
  }
}

function nearestExisting(path: string): string {
  let existing = path;
  while (!exists(existing) && dirname(existing) !== existing) existing = dirname(existing);
  return existing;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The setup file's bytes, up to `limit` + 1 (so the caller sees it is too large). O_NOFOLLOW and the
 * regular-file check: a symlink or a FIFO at that name is refused, not read through (or waited on).
 */
export function readRegularFile(path: string, limit: number): Buffer {
  const notRegular = new VigilError('UNSAFE_PATH', `${basename(path)} is not a regular file`, [path]);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    throw (err as NodeJS.ErrnoException).code === 'ELOOP' ? notRegular : err;
  }
  try {
    if (!fstatSync(fd).isFile()) throw notRegular;
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n)
      n = readSync(fd, buffer, length, buffer.length - length, null);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Overwrites the file's bytes with zeros in place, syncs, then unlinks it. On FAT the rewrite lands in the
 * same clusters; the SD card's own wear levelling may still keep old flash pages (docs/first-boot.md says so).
 * O_NOFOLLOW: a symlink at that name is only unlinked, whatever it points to is never zeroed.
 */
export function destroyFile(path: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    // ELOOP: a symlink; ENXIO: a FIFO nobody reads. Neither has bytes of ours: only the name goes.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ELOOP' && code !== 'ENXIO') throw err;
  }
  if (fd !== null) {
    try {
      const stat = fstatSync(fd);
      if (stat.isFile()) zero(fd, stat.size);
    } finally {
      closeSync(fd);
    }
  }
  unlinkSync(path);
  fsyncDirectory(dirname(path));
}

function zero(fd: number, size: number): void {
  const zeros = Buffer.alloc(Math.min(size, 64 * 1024));
  for (let offset = 0; offset < size; offset += zeros.length) {
    writeSync(fd, zeros, 0, Math.min(zeros.length, size - offset), offset);
  }
  fsyncSync(fd);
}

/** ssh-keygen(1) -A: creates each missing host key type under `root`/etc/ssh; existing keys are kept. */
export function generateSshHostKeys(root: string): void {
  mkdirSync(join(root, 'etc/ssh'), { recursive: true, mode: 0o755 });
  execFileSync('ssh-keygen', ['-A', '-f', root], { stdio: ['ignore', 'ignore', 'pipe'] });
}
