/**
 * writeFileAtomic in a directory another user can write to (docs/security.md #28.5): that user (uid 4242
 * here, the `vigil` user on the box) plants symlinks and files at the names root is about to use.
 * The tests run as root on the build machine; as anyone else the ownership cases are skipped.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../src/init/atomic-write.js';
import { tempDir } from '../helpers/temp-dir.js';

const SERVICE_UID = 4242;
const asRoot = process.getuid?.() === 0;

/** A root-owned directory with a victim file, and beside it a directory the service user owns. */
function layout(): { victim: string; dir: string; remove(): void } {
  const temp = tempDir('vigil-atomic-');
  const victim = join(temp.path, 'victim');
  writeFileSync(victim, 'root:secret\n', { mode: 0o600 });
  const dir = join(temp.path, 'data');
  mkdirSync(dir, { mode: 0o700 });
  if (asRoot) chownSync(dir, SERVICE_UID, SERVICE_UID);
  return { victim, dir, remove: temp.remove };
}

/** The temp name the writer used before it took a random one: predictable, so an attacker could plant it. */
const pidTempName = (target: string): string => `.${basename(target)}.${process.pid}.tmp`;

test('a symlink planted at the predictable temp name is never followed: its target keeps its bytes and owner', () => {
  const box = layout();
  try {
    const target = join(box.dir, 'first-boot-status.json');
    symlinkSync(box.victim, join(box.dir, pidTempName(target)));
    writeFileAtomic(
      target,
      '{"outcome":"applied"}\n',
      0o644,
      asRoot ? { owner: { uid: SERVICE_UID, gid: SERVICE_UID } } : {},
    );
    assert.is(readFileSync(box.victim, 'utf8'), 'root:secret\n');
    assert.is(statSync(box.victim).uid, process.getuid?.());
    assert.ok(lstatSync(target).isFile());
    assert.is(readFileSync(target, 'utf8'), '{"outcome":"applied"}\n');
  } finally {
    box.remove();
  }
});

test('a symlink at the given temp name is refused (O_EXCL|O_NOFOLLOW), not followed', () => {
  const box = layout();
  try {
    const target = join(box.dir, 'first-boot-admin.json');
    const planted = join(box.dir, 'planted');
    symlinkSync(box.victim, planted);
    assert.throws(
      () => writeFileAtomic(target, 'x', 0o600, { tempName: () => 'planted' }),
      (err: NodeJS.ErrnoException) => err.code === 'EEXIST',
    );
    assert.is(readFileSync(box.victim, 'utf8'), 'root:secret\n');
    assert.ok(lstatSync(planted).isSymbolicLink(), 'the planted link is left as it was');
    assert.throws(() => lstatSync(target));
  } finally {
    box.remove();
  }
});

test('a file pre-created at the temp name is not reused: the target is a new inode with the owner asked for', () => {
  if (!asRoot) return;
  const box = layout();
  try {
    const target = join(box.dir, 'first-boot-status.json');
    const planted = join(box.dir, pidTempName(target));
    writeFileSync(planted, 'planted\n');
    chownSync(planted, SERVICE_UID, SERVICE_UID);
    chmodSync(planted, 0o666);
    const plantedInode = statSync(planted).ino;
    writeFileAtomic(target, 'written by root\n', 0o600);
    const written = statSync(target);
    assert.is.not(written.ino, plantedInode, 'the planted inode would stay writable by its owner');
    assert.equal([written.uid, written.mode & 0o777], [0, 0o600]);
    assert.is(readFileSync(planted, 'utf8'), 'planted\n');
    // The same with a name given: O_EXCL refuses the existing file.
    const other = join(box.dir, 'other');
    writeFileSync(other, 'planted\n');
    assert.throws(
      () => writeFileAtomic(join(box.dir, 'x.json'), 'x', 0o600, { tempName: () => 'other' }),
      (err: NodeJS.ErrnoException) => err.code === 'EEXIST',
    );
    assert.is(readFileSync(other, 'utf8'), 'planted\n');
  } finally {
    box.remove();
  }
});

test('a symlink at the target is replaced by the file, and what it pointed to is untouched', () => {
  const box = layout();
  try {
    const target = join(box.dir, 'first-boot-status.json');
    symlinkSync(box.victim, target);
    writeFileAtomic(target, 'new\n', 0o644, asRoot ? { owner: { uid: SERVICE_UID, gid: SERVICE_UID } } : {});
    assert.ok(lstatSync(target).isFile());
    assert.is(readFileSync(target, 'utf8'), 'new\n');
    assert.is(readFileSync(box.victim, 'utf8'), 'root:secret\n');
    assert.is(statSync(box.victim).uid, process.getuid?.());
  } finally {
    box.remove();
  }
});

test('mode is exact whatever the umask, the owner is set on the descriptor, and no temp file is left', () => {
  const box = layout();
  const umask = process.umask(0o077);
  try {
    const target = join(box.dir, 'cert.pem');
    writeFileAtomic(target, 'pem\n', 0o644, asRoot ? { owner: { uid: SERVICE_UID, gid: SERVICE_UID } } : {});
    const stat = statSync(target);
    assert.is(stat.mode & 0o777, 0o644);
    if (asRoot) assert.equal([stat.uid, stat.gid], [SERVICE_UID, SERVICE_UID]);
    assert.equal(readdirSync(box.dir), ['cert.pem']);
  } finally {
    process.umask(umask);
    box.remove();
  }
});

test.run();
