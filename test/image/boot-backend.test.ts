/**
 * image/overlay/usr/lib/vigil/rauc-boot-backend: RAUC's custom boot loader backend and the writer of the
 * boot state boot.scr reads (docs/image.md "Slots and boot"), run as a real script on a temp directory;
 * and root's version floor it keeps with the pre-install handler (docs/image.md "Who may install").
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tool } from '../helpers/system-tools.js';

const LIB = new URL('../../../image/overlay/usr/lib/vigil', import.meta.url).pathname;
const SCRIPT = join(LIB, 'rauc-boot-backend');

function box() {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-boot-'));
  const env = {
    ...process.env,
    VIGIL_BOOT_DIR: dir,
    VIGIL_BOOT_LOCK: join(dir, 'lock'),
    VIGIL_BOOT_PUBLIC: join(dir, 'public', 'state.env'),
    VIGIL_CMDLINE: join(dir, 'cmdline'),
    VIGIL_CARRY_CONFIG: join(dir, 'carry'),
    VIGIL_LIB: LIB,
    VIGIL_FLOOR_APP: join(dir, 'package.json'),
    VIGIL_RAUC_STATUS: join(dir, 'central.raucs'),
    VIGIL_DOWNGRADE_PERMIT: join(dir, 'downgrade-permit'),
  };
  writeFileSync(join(dir, 'cmdline'), 'ro rauc.slot=A\n');
  writeFileSync(join(dir, 'package.json'), '{\n  "name": "vigil",\n  "version": "0.3.0"\n}\n');
  const run = (...args: string[]) => execFileSync(tool('sh'), [SCRIPT, ...args], { env, encoding: 'utf8' }).trim();
  const fails = (...args: string[]) => spawnSync(tool('sh'), [SCRIPT, ...args], { env, encoding: 'utf8' });
  const state = (name = 'vigil-boot.env') => readFileSync(join(dir, name), 'utf8');
  return { dir, env, run, fails, state, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const FRESH = 'BOOT_A_LEFT=3\nBOOT_A_TRIAL=0\nBOOT_B_LEFT=3\nBOOT_B_TRIAL=0\nBOOT_ORDER=A B\nVIGIL_END=1\n';

test('without any state: slot A is primary and both are good (what boot.scr starts from)', () => {
  const b = box();
  try {
    assert.is(b.run('get-primary'), 'A');
    assert.is(b.run('get-state', 'A'), 'good');
    assert.is(b.run('get-state', 'B'), 'good');
    assert.is(b.run('show'), FRESH.trim());
  } finally {
    b.done();
  }
});

test('set-primary B: B first, 3 tries, on trial; both copies written; a readable copy published', () => {
  const b = box();
  try {
    b.run('set-primary', 'B');
    const expected = 'BOOT_A_LEFT=3\nBOOT_A_TRIAL=0\nBOOT_B_LEFT=3\nBOOT_B_TRIAL=1\nBOOT_ORDER=B A\nVIGIL_END=1\n';
    assert.is(b.state(), expected);
    assert.is(b.state('vigil-boot.bak'), expected);
    assert.is(readFileSync(join(b.dir, 'public', 'state.env'), 'utf8'), expected);
    assert.is(b.run('get-primary'), 'B');
    assert.is(b.run('trial', 'B'), '1');
    // mark-good: full tries, off trial
    b.run('set-state', 'B', 'good');
    assert.is(b.run('trial', 'B'), '0');
    assert.match(b.state(), /BOOT_B_LEFT=3\nBOOT_B_TRIAL=0\n/);
  } finally {
    b.done();
  }
});

test('set-state bad: no tries left, so the primary is the other slot in the order', () => {
  const b = box();
  try {
    b.run('set-primary', 'B');
    b.run('set-state', 'B', 'bad');
    assert.is(b.run('get-state', 'B'), 'bad');
    assert.is(b.run('get-primary'), 'A');
    assert.match(b.state(), /BOOT_B_LEFT=0\n/);
    assert.match(b.state(), /BOOT_ORDER=B A\n/);
  } finally {
    b.done();
  }
});

test("U-Boot's own writes (env export -t with its trailing NUL, counted-down tries) are read", () => {
  const b = box();
  try {
    writeFileSync(
      join(b.dir, 'vigil-boot.env'),
      'BOOT_A_LEFT=1\nBOOT_A_TRIAL=1\nBOOT_B_LEFT=0\nBOOT_B_TRIAL=0\nBOOT_ORDER=A B\nVIGIL_END=1\n\0',
    );
    assert.is(b.run('get-primary'), 'A');
    assert.is(b.run('get-state', 'B'), 'bad');
    assert.is(b.run('trial', 'A'), '1');
  } finally {
    b.done();
  }
});

test('a torn vigil-boot.env (no end marker) is ignored for vigil-boot.bak; both torn: the fresh state', () => {
  const b = box();
  try {
    writeFileSync(join(b.dir, 'vigil-boot.bak'), FRESH.replace('BOOT_ORDER=A B', 'BOOT_ORDER=B A'));
    writeFileSync(join(b.dir, 'vigil-boot.env'), 'BOOT_A_LEFT=0\nBOOT_A_TRIAL=0\nBOOT_B_LE');
    assert.is(b.run('get-primary'), 'B');
    assert.is(b.run('get-state', 'A'), 'good');
    // A marker but a bad value is no better than a torn file.
    writeFileSync(join(b.dir, 'vigil-boot.bak'), FRESH.replace('BOOT_A_LEFT=3', 'BOOT_A_LEFT=x'));
    assert.is(b.run('show'), FRESH.trim());
  } finally {
    b.done();
  }
});

test('the backup copy is written first: a write that fails on vigil-boot.env leaves the new state in .bak', () => {
  const b = box();
  try {
    writeFileSync(join(b.dir, 'vigil-boot.env'), FRESH);
    rmSync(join(b.dir, 'vigil-boot.env'));
    mkdirSync(join(b.dir, 'vigil-boot.env')); // writing the second copy fails
    const r = b.fails('set-primary', 'B');
    assert.is.not(r.status, 0);
    assert.match(r.stderr, /writing the boot state .* failed/);
    assert.match(b.state('vigil-boot.bak'), /BOOT_ORDER=B A\n/);
    rmSync(join(b.dir, 'vigil-boot.env'), { recursive: true });
    assert.is(b.run('get-primary'), 'B'); // what boot.scr would read too: .env missing, .bak complete
  } finally {
    b.done();
  }
});

test("set-primary first carries the box's settings into the slot; a failed carry activates nothing", () => {
  const b = box();
  try {
    const calls = join(b.dir, 'calls');
    writeFileSync(join(b.dir, 'carry'), `#!/bin/sh\necho "$1" >> ${calls}\n[ ! -e ${join(b.dir, 'fail')} ]\n`, {
      mode: 0o755,
    });
    b.run('set-primary', 'B');
    b.run('set-primary', 'A'); // the booted slot (rauc.slot=A): its settings are its own
    assert.is(readFileSync(calls, 'utf8'), 'B\n');
    writeFileSync(join(b.dir, 'fail'), '');
    const before = b.state();
    const r = b.fails('set-primary', 'B');
    assert.is.not(r.status, 0);
    assert.match(r.stderr, /carrying the box's settings into slot B failed; slot B not activated/);
    assert.is(b.state(), before);
  } finally {
    b.done();
  }
});

test('get-current reads rauc.slot from the kernel command line; bad slots and states change nothing', () => {
  const b = box();
  try {
    writeFileSync(join(b.dir, 'cmdline'), 'root=PARTUUID=5649474c-03 ro rauc.slot=B console=ttyAMA0\n');
    assert.is(b.run('get-current'), 'B');
    writeFileSync(join(b.dir, 'cmdline'), 'root=/dev/sda1 ro\n');
    assert.match(b.fails('get-current').stderr, /slot must be A or B/);
    b.run('set-primary', 'A');
    const before = b.state();
    for (const args of [['set-primary', 'C'], ['set-state', 'A', 'meh'], ['get-state'], ['frobnicate']]) {
      const r = b.fails(...args);
      assert.is.not(r.status, 0, args.join(' '));
      assert.ok(r.stderr.length > 0);
    }
    assert.is(b.state(), before);
  } finally {
    b.done();
  }
});

/** RAUC's central slot status (system.conf data-directory) with the versions installed into A and B. */
function installed(dir: string, a: string | null, b: string | null): void {
  const section = (name: string, v: string | null) =>
    `[slot.${name}]\n${v ? `bundle.version=${v}\n` : ''}status=ok\n\n`;
  writeFileSync(join(dir, 'central.raucs'), section('rootfs.0', a) + section('rootfs.1', b));
}

test("the floor: a slot holding an older version than the running one is not activated without root's permit", () => {
  const b = box();
  try {
    installed(b.dir, null, '0.2.9');
    const refused = b.fails('set-primary', 'B');
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /slot B holds version 0\.2\.9, older than the running 0\.3\.0: not activated/);
    assert.is(b.run('show'), FRESH.trim(), 'nothing written');
    installed(b.dir, null, '0.3.0');
    b.run('set-primary', 'B');
    assert.is(b.run('get-primary'), 'B', 'the same version activates');
    b.run('set-primary', 'A');
    installed(b.dir, null, '0.2.9');
    writeFileSync(join(b.dir, 'downgrade-permit'), '0.2.8\n');
    assert.is(b.fails('set-primary', 'B').status, 1, 'a permit for another version');
    writeFileSync(join(b.dir, 'downgrade-permit'), '0.2.9\n');
    b.run('set-primary', 'B');
    assert.is(b.run('get-primary'), 'B', "root's permit");
    assert.not.ok(existsSync(join(b.dir, 'downgrade-permit')), 'used up');
  } finally {
    b.done();
  }
});

test('the running, confirmed slot is never marked bad; on trial it is (the trial timer), the other slot always', () => {
  const b = box();
  try {
    const refused = b.fails('set-state', 'A', 'bad');
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /slot A is running and confirmed: not marked bad/);
    b.run('set-state', 'B', 'bad');
    assert.is(b.run('get-state', 'B'), 'bad');
    b.run('set-primary', 'B');
    writeFileSync(join(b.dir, 'cmdline'), 'ro rauc.slot=B\n');
    b.run('set-state', 'B', 'bad');
    assert.is(b.run('get-primary'), 'A', 'a trial slot goes bad: back to the confirmed one');
  } finally {
    b.done();
  }
});

test('activating the running slot again (mark-active booted) keeps it confirmed: it still cannot be marked bad', () => {
  const b = box();
  try {
    b.run('set-primary', 'B');
    b.run('set-primary', 'A');
    assert.is(b.run('trial', 'A'), '0', 'the running, confirmed slot is not put on trial');
    assert.is(b.run('get-primary'), 'A');
    const refused = b.fails('set-state', 'A', 'bad');
    assert.is(refused.status, 1);
    assert.match(refused.stderr, /slot A is running and confirmed: not marked bad/);
    writeFileSync(join(b.dir, 'cmdline'), 'ro rauc.slot=B\n');
    b.run('set-primary', 'B');
    assert.is(b.run('trial', 'B'), '1', 'a running slot on trial stays on trial');
  } finally {
    b.done();
  }
});

test('the pre-install handler refuses an older bundle before anything is written, unless root permitted it', () => {
  const b = box();
  try {
    const bundle = join(b.dir, 'bundle');
    mkdirSync(bundle);
    const handler = (version: string) => {
      writeFileSync(join(bundle, 'manifest.raucm'), `[update]\ncompatible=vigil-rpi-arm64\nversion=${version}\n`);
      return spawnSync(tool('sh'), [join(LIB, 'rauc-pre-install')], {
        env: { ...b.env, RAUC_BUNDLE_MOUNT_POINT: bundle },
        encoding: 'utf8',
      });
    };
    assert.is(handler('0.3.1').status, 0);
    assert.is(handler('0.3.0').status, 0, 'the same version (a repair)');
    const older = handler('0.2.10');
    assert.is(older.status, 1);
    assert.match(
      older.stdout,
      /^<< error vigil: the bundle's version 0\.2\.10 is older than the running 0\.3\.0: a downgrade needs root's permit/m,
    );
    assert.is(handler('0.10.0').status, 0, 'versions compare by number, not text');
    writeFileSync(join(b.dir, 'downgrade-permit'), '0.2.10\n');
    assert.is(handler('0.2.10').status, 0, "root's permit");
    assert.is(handler('0.2.9').status, 1, 'for that version only');
  } finally {
    b.done();
  }
});

test.run();
