/**
 * installBundle with real bundles and the real `rauc info` (test/helpers/rauc-fixture.ts): a good bundle
 * is installed into the other slot and recorded `pending`; an unsigned one, one signed by another CA, a
 * cut one, one with a flipped payload byte, one for another board and an older one are each refused with
 * their code, `rauc install` is never called and the incoming file is gone.
 */
import { createReadStream, existsSync, type ReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { installBundle } from '../../src/update/installer.js';
import { readUpdateRecord } from '../../src/update/update-record.js';
import { UpdateSystem } from '../../src/update/update-system.js';
import {
  corrupted,
  fakeBox,
  makeBundle,
  makeKeys,
  truncated,
  unsigned,
  type FakeBox,
  type Keys,
} from '../helpers/rauc-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const fixtures = tempDir('vigil-bundles-');
let keys: Keys;
let good: string;
let older: string;
let other: string;
let foreign: string;

test.before(() => {
  keys = makeKeys(join(fixtures.path, 'keys'));
  good = makeBundle(fixtures.path, keys, { version: '1.3.0' });
  older = makeBundle(fixtures.path, keys, { version: '1.1.9' });
  other = makeBundle(fixtures.path, keys, { version: '1.3.0', other: true });
  foreign = makeBundle(fixtures.path, keys, { version: '1.3.0', compatible: 'vigil-x86_64' });
});
test.after(() => fixtures.remove());

let dir: ReturnType<typeof tempDir>;
let box: FakeBox;
let system: UpdateSystem;

test.before.each(() => {
  dir = tempDir();
  box = fakeBox(join(dir.path, 'box'));
  system = new UpdateSystem({
    dataDir: join(dir.path, 'data'),
    version: '1.2.0',
    clock: new ManualClock(Date.UTC(2026, 10, 26, 12)),
    logger: silentLogger,
    rauc: { bin: box.rauc, extraArgs: [`--keyring=${keys.ca}`] },
    cmdlinePath: box.cmdline,
    bootEnvPath: box.bootEnv,
    bootId: () => 'boot-1',
  });
});
/** The bodies handed to installBundle: a refusal before reading leaves one still opening its file. */
const bodies: ReadStream[] = [];
function body(file: string): ReadStream {
  const stream = createReadStream(file);
  bodies.push(stream);
  return stream;
}

test.after.each(async () => {
  // Closed before the fixtures go: a late open of a removed bundle would fail the whole run.
  for (const stream of bodies.splice(0)) {
    if (stream.closed) continue;
    await new Promise<void>((resolve) => {
      stream.on('error', () => undefined); // teardown: the test's own assertions are done
      stream.once('close', () => resolve());
      stream.destroy();
    });
  }
  dir.remove();
});

function install(file: string, allowDowngrade = false) {
  return installBundle(system, { body: body(file), allowDowngrade });
}

test('a signed bundle of a newer version is installed into the other slot and recorded pending', async () => {
  const outcome = await install(good);
  assert.is(outcome.kind, 'installed', JSON.stringify(outcome));
  assert.equal(box.calls(), [`install ${join(dir.path, 'data', 'update', 'incoming.raucb')}`]);
  const record = readUpdateRecord(system.dataDir).install!;
  assert.equal(
    [record.from_version, record.to_version, record.slot, record.outcome, record.boot_id],
    ['1.2.0', '1.3.0', 'B', 'pending', 'boot-1'],
  );
  assert.is(record.installed_at, '2026-11-26T12:00:00.000Z');
  assert.not.ok(existsSync(join(system.dataDir, 'update', 'incoming.raucb')), 'the incoming file is removed');
  assert.match(readFileSync(box.bootEnv, 'utf8'), /BOOT_ORDER=B A/);
});

const refusals: [string, () => string, string, RegExp][] = [
  ['an unsigned bundle', () => unsigned(good), 'UNSIGNED', /not signed/],
  [
    'a bundle signed by a key the box does not trust',
    () => other,
    'BAD_SIGNATURE',
    /not signed by a key this box trusts/,
  ],
  ['a truncated bundle', () => truncated(good, 20_000), 'BAD_BUNDLE', /truncated or not a system bundle/],
  ['a bundle whose payload was altered', () => corrupted(good), 'CORRUPTED', /payload is corrupted/],
  [
    'a bundle for another board family',
    () => foreign,
    'WRONG_COMPATIBLE',
    /"vigil-x86_64", this box is "vigil-rpi-arm64"/,
  ],
  ['an older bundle', () => older, 'OLDER', /1\.1\.9 is older than the running 1\.2\.0/],
  ['a file that is not a bundle', () => join(fixtures.path, 'keys', 'dev-ca.pem'), 'BAD_BUNDLE', /not a system bundle/],
];

for (const [name, file, code, words] of refusals) {
  test(`${name} is refused with ${code} and nothing changes`, async () => {
    const envBefore = readFileSync(box.bootEnv, 'utf8');
    const outcome = await install(file());
    assert.is(outcome.kind, 'refused');
    if (outcome.kind !== 'refused') return;
    assert.is(outcome.code, code, outcome.message);
    assert.match(outcome.message, words);
    assert.equal(box.calls(), [], 'rauc install was never called');
    assert.is(readFileSync(box.bootEnv, 'utf8'), envBefore, 'the boot state is untouched');
    assert.is(readUpdateRecord(system.dataDir).install, null, 'no record');
    assert.not.ok(existsSync(join(system.dataDir, 'update', 'incoming.raucb')), 'the incoming file is removed');
  });
}

test('an older bundle is installed when a downgrade is allowed', async () => {
  const outcome = await install(older, true);
  assert.is(outcome.kind, 'installed');
  assert.is(readUpdateRecord(system.dataDir).install?.to_version, '1.1.9');
});

test('a failing rauc install is INSTALL_FAILED with rauc words, and no record is written', async () => {
  box.failInstall('Installation error: Failed updating slot rootfs.1: image too large for slot\n');
  const outcome = await install(good);
  assert.equal(outcome.kind === 'refused' && [outcome.code, /image too large/.test(outcome.message)], [
    'INSTALL_FAILED',
    true,
  ]);
  assert.is(readUpdateRecord(system.dataDir).install, null);
});

test("root's version floor (the image's pre-install handler) refusing an allowed downgrade is OLDER, in its words", async () => {
  // RAUC ends an install its handler refused with the handler's `<< error …` line among its words.
  box.failInstall(
    "Installation error: Handler error: vigil: the bundle's version 1.1.9 is older than the running 1.2.0: a downgrade needs root's permit on the box (/usr/lib/vigil/permit-downgrade 1.1.9)\n",
  );
  const outcome = await installBundle(system, { body: body(older), allowDowngrade: true });
  assert.equal(outcome.kind === 'refused' && [outcome.code, outcome.message], [
    'OLDER',
    "the bundle's version 1.1.9 is older than the running 1.2.0: a downgrade needs root's permit on the box (/usr/lib/vigil/permit-downgrade 1.1.9)",
  ]);
  assert.is(readUpdateRecord(system.dataDir).install, null);
});

test('a bundle that does not fit in the free space is refused NO_SPACE before it is verified', async () => {
  const outcome = await installBundle(system, {
    body: body(good),
    allowDowngrade: false,
    limits: { reserveBytes: Number.MAX_SAFE_INTEGER },
  });
  assert.equal(outcome.kind === 'refused' && outcome.code, 'NO_SPACE');
  assert.equal(box.calls(), []);
});

test('while the running slot is on trial, installing is refused: the other slot is the way back', async () => {
  box.boot('B', 'BOOT_ORDER=B A\nBOOT_A_LEFT=3\nBOOT_B_LEFT=2\nBOOT_A_TRIAL=0\nBOOT_B_TRIAL=1\n');
  const outcome = await install(good);
  assert.equal(outcome.kind === 'refused' && outcome.code, 'UNCONFIRMED');
});

test('on a system without A/B slots (no rauc.slot on the command line) the answer is UPDATE_UNAVAILABLE', async () => {
  box.boot('A', '');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(box.cmdline, 'console=tty0 root=/dev/sda1\n');
  const outcome = await install(good);
  assert.equal(outcome.kind === 'refused' && outcome.code, 'UPDATE_UNAVAILABLE');
});

test('without a rauc binary the answer is UPDATE_UNAVAILABLE', async () => {
  const bare = new UpdateSystem({
    dataDir: system.dataDir,
    version: '1.2.0',
    clock: system.clock,
    logger: silentLogger,
    rauc: { bin: join(dir.path, 'no-such-rauc') },
    cmdlinePath: box.cmdline,
    bootEnvPath: box.bootEnv,
  });
  const outcome = await installBundle(bare, { body: body(good), allowDowngrade: false });
  assert.equal(outcome.kind === 'refused' && outcome.code, 'UPDATE_UNAVAILABLE');
  assert.is(await bare.slotsReport(), null);
});

test.run();
