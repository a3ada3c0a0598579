/**
 * File operations under a target root for first boot: atomic writes (a half-written network file is a box
 * nobody can reach), symlinks that enable units, removals, and destroying the setup file.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, openSync, rmSync, statSync, symlinkSync, unlinkSync, writeSync, lstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '../init/atomic-write.js';

export class SystemFiles {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  write(relative: string, content: string, mode = 0o644): void {
    const path = join(this.root, relative);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileAtomic(path, content, mode);
  }

  mkdir(relative: string, mode: number): void {
    mkdirSync(join(this.root, relative), { recursive: true, mode });
  }

  /** Replaces whatever is at `relative` with a symlink to `target` (an absolute path as seen on the box). */
  symlink(relative: string, target: string): void {
    const path = join(this.root, relative);
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    rmSync(path, { force: true });
    symlinkSync(target, path);
  }

  remove(...relatives: string[]): void {
    for (const relative of relatives) {
      const path = join(this.root, relative);
      if (exists(path)) rmSync(path, { force: true });
    }
  }
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
 * Overwrites the file's bytes with zeros in place, syncs, then unlinks it. On FAT the rewrite lands in the
 * same clusters; the SD card's own wear levelling may still keep old flash pages (docs/first-boot.md says so).
 */
export function destroyFile(path: string): void {
  const size = statSync(path).size;
  const fd = openSync(path, 'r+');
  try {
    const zeros = Buffer.alloc(Math.min(size, 64 * 1024));
    for (let offset = 0; offset < size; offset += zeros.length) {
      writeSync(fd, zeros, 0, Math.min(zeros.length, size - offset), offset);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  unlinkSync(path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } catch {
    // Some file systems (FAT on older kernels) refuse fsync on a directory; the unlink stands.
  } finally {
    closeSync(dir);
  }
}

/** ssh-keygen(1) -A: creates each missing host key type under `root`/etc/ssh; existing keys are kept. */
export function generateSshHostKeys(root: string): void {
  mkdirSync(join(root, 'etc/ssh'), { recursive: true, mode: 0o755 });
  execFileSync('ssh-keygen', ['-A', '-f', root], { stdio: ['ignore', 'ignore', 'pipe'] });
}
