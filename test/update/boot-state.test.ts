/** The boot loader's facts, parsed purely (src/update/boot-state.ts, rauc-status.ts, versions.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseBootedSlot, parseBootEnv } from '../../src/update/boot-state.js';
import { parseRaucStatus } from '../../src/update/rauc-status.js';
import { compareVersions } from '../../src/update/versions.js';

test('the booted slot is rauc.slot on the kernel command line, and nothing else', () => {
  assert.is(parseBootedSlot('console=ttyAMA0 root=PARTUUID=1-02 rauc.slot=B rootwait\n'), 'B');
  assert.is(parseBootedSlot('console=ttyAMA0 root=/dev/sda2'), null);
  assert.is(parseBootedSlot('rauc.slot=C'), null);
  assert.is(parseBootedSlot('xrauc.slot=A'), null);
});

test('the boot state file: order, tries left and trial flags; comments, end marker and NULs skipped', () => {
  const state = parseBootEnv(
    '# vigil boot state\nBOOT_ORDER=B A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=2\nBOOT_A_TRIAL=0\nBOOT_B_TRIAL=1\nEND=1\n\0\0',
  );
  assert.equal(state, { order: ['B', 'A'], triesLeft: { A: 3, B: 2 }, trial: { A: false, B: true } });
});

test('an empty or garbled boot state is unknown, never an error', () => {
  assert.equal(parseBootEnv(''), { order: [], triesLeft: { A: null, B: null }, trial: { A: false, B: false } });
  assert.equal(parseBootEnv('BOOT_ORDER=X\nBOOT_A_LEFT=many\nBOOT_B_TRIAL=yes'), {
    order: [],
    triesLeft: { A: null, B: null },
    trial: { A: false, B: false },
  });
});

test("rauc status JSON: booted and primary by boot name, each slot's bundle version", () => {
  const status = parseRaucStatus({
    compatible: 'vigil-rpi-arm64',
    booted: 'A',
    boot_primary: 'rootfs.1',
    slots: [
      {
        'rootfs.0': {
          bootname: 'A',
          state: 'booted',
          boot_status: 'good',
          slot_status: { bundle: { compatible: null } },
        },
      },
      {
        'rootfs.1': {
          bootname: 'B',
          state: 'inactive',
          boot_status: 'good',
          slot_status: { bundle: { version: '1.3.0' }, installed: { timestamp: '2026-11-26T12:00:00Z', count: 1 } },
        },
      },
      { 'boot.0': { bootname: null, state: 'inactive' } },
    ],
  });
  assert.equal(status, {
    compatible: 'vigil-rpi-arm64',
    booted: 'A',
    primary: 'B',
    slots: [
      { raucName: 'rootfs.0', bootname: 'A', state: 'booted', bootStatus: 'good', version: null, installedAt: null },
      {
        raucName: 'rootfs.1',
        bootname: 'B',
        state: 'inactive',
        bootStatus: 'good',
        version: '1.3.0',
        installedAt: '2026-11-26T12:00:00Z',
      },
    ],
  });
});

test('versions compare numerically; a pre-release comes before its release', () => {
  assert.ok(compareVersions('1.10.0', '1.9.9') > 0);
  assert.ok(compareVersions('0.2.0', '0.2.0') === 0);
  assert.ok(compareVersions('0.2', '0.2.0') === 0);
  assert.ok(compareVersions('0.3.0-rc.1', '0.3.0') < 0);
  assert.ok(compareVersions('0.3.0-rc.1', '0.2.9') > 0);
});

test.run();
