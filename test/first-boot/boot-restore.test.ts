/**
 * A backup placed beside vigil-setup.txt before the first boot (docs/first-boot.md "Restoring a backup"):
 * checked whole and staged by first boot, applied by the gateway's first start (same settings, users,
 * instance); a wrong passphrase, a damaged file or a contradicting key is refused in the result file with
 * nothing applied or staged; the passphrase never appears in the result file.
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBackup } from '../../src/backup/create-backup.js';
import { runFirstBoot, type FirstBootOptions } from '../../src/first-boot/apply.js';
import { RESULT_FILE, SETUP_FILE } from '../../src/first-boot/setup-file.js';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSPHRASE = 'Depot north, cabinet 7 key';
const dir = tempDir('vigil-boot-restore-');
let backup: string;
let sourceSecret: string;

async function gatewayOn(dataDir: string): Promise<Gateway> {
  const gateway = new Gateway({
    dataDir,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  await gateway.start();
  return gateway;
}

test.before(async () => {
  const source = join(dir.path, 'old-card');
  const gateway = await gatewayOn(source);
  const saved = await gateway.settings.update({ general: { instance_name: 'Depot north' } });
  assert.ok(saved.ok);
  sourceSecret = gateway.settings.current().api.api_jwt_secret;
  await gateway.stop();
  backup = join(dir.path, 'depot.vbk');
  await writeBackup(
    { dataDir: source, passphrase: PASSPHRASE, journal: false, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26) },
    createWriteStream(backup),
  );
});
test.after(() => dir.remove());

let card = 0;
function freshCard(setup: string, backupBytes: Buffer | null = readFileSync(backup)) {
  const base = join(dir.path, `card-${++card}`);
  const boot = join(base, 'boot');
  const root = join(base, 'root');
  const data = join(base, 'data');
  for (const d of [boot, join(root, 'usr/share/zoneinfo/Etc'), data]) mkdirSync(d, { recursive: true, mode: 0o755 });
  writeFileSync(join(root, 'usr/share/zoneinfo/Etc/UTC'), 'TZif');
  writeFileSync(join(boot, SETUP_FILE), setup);
  if (backupBytes) writeFileSync(join(boot, 'vigil-backup-depot.vbk'), backupBytes);
  const options: FirstBootOptions = {
    bootDir: boot,
    root,
    dataDir: data,
    now: () => new Date('2026-11-26T18:00:00Z'),
    generatePassword: () => 'generated-password-0123',
    sshHostKeys: () => undefined,
  };
  return { boot, root, data, options, result: () => readFileSync(join(boot, RESULT_FILE), 'utf8') };
}

test('a backup beside the setup file is restored before the first start: same settings, secrets and name', async () => {
  const c = freshCard(`hostname = depot-north\nrestore_passphrase = ${PASSPHRASE}\n`);
  const outcome = await runFirstBoot(c.options);
  assert.is(outcome.kind, 'applied', JSON.stringify(outcome));
  const result = c.result();
  assert.match(result, 'restore: the backup of Depot north made 2026-11-26T00:00:00.000Z by version 0.1.0');
  assert.not.match(result, PASSPHRASE);
  assert.not.match(result, 'Generated admin password', 'the backup brings its accounts');
  assert.not.ok(existsSync(join(c.boot, 'vigil-backup-depot.vbk')), 'the backup file is removed');
  assert.not.ok(existsSync(join(c.boot, SETUP_FILE)), 'the passphrase goes with the setup file');
  assert.ok(existsSync(join(c.data, 'restore-pending', 'vigil.db')));
  assert.is(readFileSync(join(c.root, 'etc/hostname'), 'utf8'), 'depot-north\n');

  const gateway = await gatewayOn(c.data);
  try {
    assert.is(gateway.settings.current().general.instance_name, 'Depot north');
    assert.is(gateway.settings.current().api.api_jwt_secret, sourceSecret);
    assert.not.ok(existsSync(join(c.data, 'restore-pending')));
  } finally {
    await gateway.stop();
  }
});

const refusals: [string, string, Buffer | null, RegExp][] = [
  [
    'a wrong passphrase',
    'restore_passphrase = not the right passphrase\n',
    null,
    /restore: vigil-backup-depot\.vbk: wrong passphrase for this backup; nothing was restored/,
  ],
  [
    'a damaged file',
    `restore_passphrase = ${PASSPHRASE}\n`,
    Buffer.from('damaged'),
    /restore: vigil-backup-depot\.vbk: .*damaged.*nothing was restored/,
  ],
  [
    'a backup without its passphrase',
    'hostname = depot-north\n',
    null,
    /vigil-backup-depot\.vbk needs its passphrase as restore_passphrase/,
  ],
  [
    'admin_password with a restore',
    `admin_password = a-new-password-1\nrestore_passphrase = ${PASSPHRASE}\n`,
    null,
    /admin_password: does not apply with restore_passphrase/,
  ],
];

for (const [name, setup, change, words] of refusals) {
  test(`${name} is refused in the result file and nothing is applied or staged`, async () => {
    let bytes: Buffer | null = readFileSync(backup);
    if (change) bytes = Buffer.concat([bytes.subarray(0, bytes.length - 40), Buffer.alloc(40, 7)]);
    const c = freshCard(setup, bytes);
    const outcome = await runFirstBoot(c.options);
    assert.is(outcome.kind, 'rejected');
    assert.match(c.result(), words);
    assert.match(c.result(), 'NOT applied');
    assert.not.match(c.result(), PASSPHRASE);
    assert.not.ok(existsSync(join(c.data, 'restore-pending')), 'nothing staged');
    assert.not.ok(existsSync(join(c.root, 'etc/hostname')), 'no system file written');
    assert.ok(existsSync(join(c.boot, 'vigil-backup-depot.vbk')), 'the backup stays for a corrected setup file');
  });
}

test('a restore_passphrase without a backup file is refused', async () => {
  const c = freshCard(`restore_passphrase = ${PASSPHRASE}\n`, null);
  assert.is((await runFirstBoot(c.options)).kind, 'rejected');
  assert.match(c.result(), 'restore_passphrase: no backup file (*.vbk) beside the setup file');
});

test.run();
