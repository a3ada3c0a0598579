/** `vigil backup` and `vigil restore` as a technician runs them on the box (docs/backup.md). */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;
const run = promisify(execFile);

async function vigil(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
      env: { ...process.env, VIGIL_BACKUP_PASSPHRASE: '', ...env },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout, err: failed.stderr };
  }
}

test('vigil backup writes one 0600 file; vigil restore checks it and stages it for the next start', async () => {
  const dir = tempDir();
  try {
    const box = join(dir.path, 'box');
    const gateway = new Gateway({
      dataDir: box,
      httpPort: await freePort(),
      httpsPort: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    });
    await gateway.start();
    await gateway.stop();
    const secretFile = join(dir.path, 'passphrase');
    writeFileSync(secretFile, 'a long enough passphrase\n');
    const file = join(dir.path, 'box.vbk');
    const made = await vigil(['backup', '--data-dir', box, '--out', file, '--passphrase-file', secretFile]);
    assert.is(made.code, 0, made.err);
    assert.match(made.out, /^backup of vigil \(version .*, without the journal\) written to /);
    assert.is(statSync(file).mode & 0o777, 0o600);
    assert.not.ok(existsSync(`${file}.partial`));

    const fresh = join(dir.path, 'fresh');
    mkdirSync(fresh);
    const wrong = await vigil(['restore', file, '--data-dir', fresh], { VIGIL_BACKUP_PASSPHRASE: 'not the right one' });
    assert.is(wrong.code, 1);
    assert.is(wrong.err, 'vigil: wrong passphrase for this backup\n');
    const staged = await vigil(['restore', file, '--data-dir', fresh, '--passphrase-file', secretFile]);
    assert.is(staged.code, 0, staged.err);
    assert.match(staged.out, /checked and staged; it replaces the store at the next start of the gateway/);
    assert.ok(existsSync(join(fresh, 'restore-pending', 'vigil.db')));
  } finally {
    dir.remove();
  }
});

test('without a passphrase and without a terminal the command says how to give one', async () => {
  const dir = tempDir();
  try {
    const result = await vigil(['backup', '--data-dir', dir.path, '--out', join(dir.path, 'x.vbk')]);
    assert.is(result.code, 1);
    assert.match(result.err, /no passphrase: use --passphrase-file or VIGIL_BACKUP_PASSPHRASE/);
  } finally {
    dir.remove();
  }
});

test.run();
