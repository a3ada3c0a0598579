/**
 * `vigil update install` and `vigil update status` as a technician runs them on the box (docs/updates.md
 * "On the box"): the stages printed, exit 0 and the record on success; the refusal's code, exit 1 and
 * nothing changed on a bad bundle; exit 3 and "not available" on a host without A/B slots.
 */
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readUpdateRecord } from '../../src/update/update-record.js';
import { corrupted, fakeBox, makeBundle, makeKeys, type FakeBox } from '../helpers/rauc-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const run = promisify(execFile);
const dir = tempDir('vigil-update-cli-');
let good: string;
let box: FakeBox;
let env: NodeJS.ProcessEnv;
const data = join(dir.path, 'data');

test.before(() => {
  const keys = makeKeys(join(dir.path, 'keys'));
  good = makeBundle(dir.path, keys, { version: '99.1.0' });
  box = fakeBox(join(dir.path, 'box'));
  mkdirSync(data);
  env = {
    ...process.env,
    VIGIL_RAUC: box.rauc,
    VIGIL_RAUC_ARGS: `--keyring=${keys.ca}`,
    VIGIL_CMDLINE: box.cmdline,
    VIGIL_BOOT_ENV: box.bootEnv,
  };
});
test.after(() => dir.remove());

async function vigil(
  args: string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args, '--data-dir', data], {
      env: { ...env, ...extra },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

test('a corrupted bundle: exit 1, the code on stderr, nothing installed', async () => {
  const refused = await vigil(['update', 'install', corrupted(good)]);
  assert.is(refused.code, 1);
  assert.match(refused.err, /^vigil: refused: CORRUPTED: the bundle payload is corrupted.*\nNothing was changed\.\n$/);
  assert.equal(box.calls(), []);
});

test('a good bundle: the stages, exit 0, the record; status shows both slots and the install', async () => {
  const done = await vigil(['update', 'install', good]);
  assert.is(done.code, 0, done.err);
  assert.match(
    done.out,
    /copying the bundle: 100 %\nchecking the signature, the version and every byte of the payload\ninstalling into the other slot/,
  );
  assert.match(done.out, /installed: version 99\.1\.0 in slot B/);
  assert.is(readUpdateRecord(data).install?.outcome, 'pending');
  const status = await vigil(['update', 'status']);
  assert.is(status.code, 0, status.err);
  assert.match(status.out, 'booted slot: A; the boot loader tries B first');
  assert.match(status.out, 'slot B: inactive, good, version 99.1.0, on trial, 3 tries left');
  assert.match(status.out, /last update: .* -> 99\.1\.0 in slot B, .*: pending/);
});

test('on a host without A/B slots: exit 3 and "not available"', async () => {
  const extra = { VIGIL_CMDLINE: join(dir.path, 'no-cmdline') };
  const status = await vigil(['update', 'status'], extra);
  assert.equal([status.code, /not available on this system/.test(status.out)], [3, true]);
  const install = await vigil(['update', 'install', good], extra);
  assert.equal([install.code, /UPDATE_UNAVAILABLE/.test(install.err)], [3, true]);
});

test('usage errors exit 2', async () => {
  assert.is((await vigil(['update', 'install'])).code, 2);
  assert.is((await vigil(['update', 'frobnicate'])).code, 2);
});

test.run();
