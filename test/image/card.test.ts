/**
 * image/tools/card.ts, the start that image-check and update-check share, on a real (small) card image
 * made with sfdisk and mkfs.fat and read back with mtools: the card is 4 GiB, vigil-setup.txt is on its
 * boot partition (admin password for a new box; restore_passphrase and the backup beside it, and no
 * admin_password, for a restored one: docs/first-boot.md "Restoring a backup"); a card without the four
 * partitions is refused.
 */
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DISK_BYTES, prepareCard, startCheck } from '../../image/tools/card.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

let dir: ReturnType<typeof tempDir>;
test.before.each(() => {
  dir = tempDir('vigil-card-');
});
test.after.each(() => dir.remove());

/** A 16 MiB "image": FAT boot partition (type 0x0c) and `rest` more partitions, like genimage's layout. */
function image(rest = 3): string {
  const file = join(dir.path, 'vigil.img');
  execFileSync(tool('truncate'), ['-s', '16M', file]);
  const table = ['label: dos', 'start=2048, size=8192, type=c'];
  for (let i = 0; i < rest; i += 1) table.push(`start=${10240 + i * 2048}, size=2048, type=83`);
  execFileSync(tool('sfdisk'), ['-q', file], { input: `${table.join('\n')}\n` });
  execFileSync(tool('mkfs.fat'), ['--offset', '2048', file, '4096'], { stdio: 'ignore' });
  return file;
}

test('a new box: a 4 GiB card with vigil-setup.txt holding the admin password and the SSH key', async () => {
  const start = await startCheck(join(dir.path, 'work'), 'card-test');
  assert.match(start.publicKey, /^ssh-ed25519 \S+ card-test$/);
  assert.is(new Set(Object.values(start.ports)).size, 3, 'three distinct ports');
  const disk = join(dir.path, 'disk.img');
  const { partitions, fat } = prepareCard(image(), disk, start, { adminPassword: start.password });
  assert.is(statSync(disk).size, DISK_BYTES);
  assert.is(partitions.length, 4);
  assert.equal(fat.list(), ['vigil-setup.txt']);
  const setup = fat.read('vigil-setup.txt');
  assert.match(setup, new RegExp(`^admin_password = ${start.password}$`, 'm'));
  assert.match(setup, /^instance_name = image-check$/m);
  assert.ok(setup.includes(`ssh_authorized_key = ${start.publicKey}`));
  assert.not.match(setup, /restore_passphrase/);
  assert.is(statSync(join(start.work, 'vigil-setup.txt')).mode & 0o777, 0o600, 'the host copy is private');
});

test('a restored box: the backup beside vigil-setup.txt, restore_passphrase, no admin password or name', async () => {
  const start = await startCheck(join(dir.path, 'work'), 'card-test');
  const vbk = join(start.work, 'vigil-backup.vbk');
  writeFileSync(vbk, 'VGLBKP01 stand-in');
  const disk = join(dir.path, 'disk.img');
  const { fat } = prepareCard(image(), disk, start, { restorePassphrase: 'a passphrase of 12+' }, [vbk]);
  assert.equal(fat.list().sort(), ['vigil-backup.vbk', 'vigil-setup.txt']);
  assert.is(fat.read('vigil-backup.vbk'), 'VGLBKP01 stand-in');
  const setup = fat.read('vigil-setup.txt');
  assert.match(setup, /^restore_passphrase = a passphrase of 12\+$/m);
  // docs/first-boot.md: both are refused beside restore_passphrase.
  assert.not.match(setup, /admin_password|instance_name/);
});

test('a card without the four partitions (boot, slot A, slot B, data) is refused', async () => {
  const start = await startCheck(join(dir.path, 'work'), 'card-test');
  assert.throws(
    () => prepareCard(image(1), join(dir.path, 'disk.img'), start, { adminPassword: 'x' }),
    /expected FAT boot \+ slot A \+ slot B \+ data partitions/,
  );
});

test('startCheck empties the work dir it is given', async () => {
  const work = join(dir.path, 'work');
  const first = await startCheck(work, 'card-test');
  writeFileSync(join(work, 'left-over'), 'x');
  const second = await startCheck(work, 'card-test');
  assert.throws(() => statSync(join(work, 'left-over')));
  assert.is.not(second.password, first.password);
});

test.run();
