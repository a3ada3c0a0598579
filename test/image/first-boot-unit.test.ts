/**
 * vigil-first-boot.service on the image (docs/first-boot.md, docs/security.md #28.5): first boot runs as
 * root, so what starts it must be state only root can make, never a file in the data dir the gateway's
 * user owns (deleting first-boot-status.json and crashing the gateway into a reboot re-ran it as root).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SETUP_FILE } from '../../src/first-boot/setup-file.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const OVERLAY = join(REPO, 'image', 'overlay');
const UNIT_TEXT = readFileSync(join(OVERLAY, 'etc/systemd/system/vigil-first-boot.service'), 'utf8');
const SCRIPT = readFileSync(join(OVERLAY, 'usr/lib/vigil/first-boot'), 'utf8');
const DATA_DIR = '/var/lib/vigil';

/** The key=value lines of one section, in order (a key may repeat). */
function unitLines(section: string): [string, string][] {
  const lines: [string, string][] = [];
  let current = '';
  for (const raw of UNIT_TEXT.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) current = header[1]!;
    else if (current === section) lines.push([line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]);
  }
  return lines;
}

test('first boot starts on the setup file on the boot partition, or the uncommitted machine id; nothing in the data dir', () => {
  const conditions = unitLines('Unit').filter(([key]) => key.startsWith('Condition') || key.startsWith('Assert'));
  const bootDir = /--boot-dir (\S+)/.exec(SCRIPT)?.[1];
  assert.is(bootDir, '/boot/firmware');
  assert.equal(conditions, [
    ['ConditionPathExists', `|${bootDir}/${SETUP_FILE}`],
    ['ConditionPathIsMountPoint', '|/etc/machine-id'],
  ]);
  assert.is(/--data-dir (\S+)/.exec(SCRIPT)?.[1], DATA_DIR);
  for (const [key, value] of conditions)
    assert.not.ok(value.includes(DATA_DIR), `${key}=${value} names a path the service user controls`);
});

test('the fstab mounts the boot partition for root alone (umask=0077), so only root can put a setup file there', () => {
  const fstab = readFileSync(join(OVERLAY, 'etc/fstab'), 'utf8');
  const boot = fstab.split('\n').find((l) => /^\S+\s+\/boot\/firmware\s/.test(l)) ?? '';
  assert.match(boot, /\svfat\s+\S*\bumask=0077\b/);
  assert.not.match(boot, /\b(uid|gid)=(?!0\b)/);
});

test('systemd-analyze verify accepts the unit without a warning', () => {
  const dir = tempDir('vigil-first-boot-unit-');
  try {
    // The script and the fstab mounts exist only on the image: an existing executable and two mount units stand in.
    writeFileSync(
      join(dir.path, 'vigil-first-boot.service'),
      UNIT_TEXT.replace('/usr/lib/vigil/first-boot', '/bin/true'),
    );
    writeFileSync(
      join(dir.path, 'boot-firmware.mount'),
      '[Mount]\nWhat=LABEL=VIGIL-BOOT\nWhere=/boot/firmware\nType=vfat\n',
    );
    writeFileSync(
      join(dir.path, 'var-lib-vigil.mount'),
      '[Mount]\nWhat=LABEL=vigil-data\nWhere=/var/lib/vigil\nType=ext4\n',
    );
    const run = spawnSync(tool('systemd-analyze'), ['verify', join(dir.path, 'vigil-first-boot.service')], {
      env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir.path}:` },
      encoding: 'utf8',
    });
    assert.equal([run.status, run.stderr.trim()], [0, '']);
  } finally {
    dir.remove();
  }
});

test.run();
