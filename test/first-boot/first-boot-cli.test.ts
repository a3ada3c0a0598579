import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFirstBootCli } from '../../src/first-boot/first-boot-cli.js';
import { parseCli } from '../../src/cli-args.js';
import { tempDir } from '../helpers/temp-dir.js';

function card(): { boot: string; root: string; dataDir: string; remove(): void } {
  const dir = tempDir('vigil-first-boot-cli-');
  const boot = join(dir.path, 'boot');
  const root = join(dir.path, 'root');
  mkdirSync(boot);
  mkdirSync(join(root, 'usr/share/zoneinfo/Etc'), { recursive: true });
  writeFileSync(join(root, 'usr/share/zoneinfo/Etc/UTC'), 'TZif');
  return { boot, root, dataDir: join(dir.path, 'data'), remove: dir.remove };
}

test('vigil first-boot: defaults, and the data dir given', () => {
  assert.equal(parseCli(['first-boot'], { VIGIL_DATA_DIR: '/var/lib/vigil' }), {
    command: 'first-boot',
    bootDir: '/boot/firmware',
    root: '/',
    dataDir: '/var/lib/vigil',
  });
  assert.equal(parseCli(['first-boot', '--boot-dir', 'b', '--root', 'r', '--data-dir', 'd']), {
    command: 'first-boot',
    bootDir: 'b',
    root: 'r',
    dataDir: 'd',
  });
});

test('exit 0 and a console line without a file, every time; nothing is written', async () => {
  const c = card();
  try {
    for (let boot = 0; boot < 2; boot += 1) {
      const lines: string[] = [];
      assert.is(await runFirstBootCli({ bootDir: c.boot, root: c.root, dataDir: c.dataDir }, (t) => lines.push(t)), 0);
      assert.equal(lines, [
        'vigil first boot: no vigil-setup.txt; defaults kept (DHCP; the admin password is generated at first start)\n',
      ]);
      assert.not.ok(existsSync(join(c.dataDir, 'first-boot-status.json')));
    }
  } finally {
    c.remove();
  }
});

test('exit 3 and the problems on the console when the file is rejected', async () => {
  const c = card();
  try {
    writeFileSync(join(c.boot, 'vigil-setup.txt'), 'hostname = a b\n');
    const lines: string[] = [];
    assert.is(await runFirstBootCli({ bootDir: c.boot, root: c.root, dataDir: c.dataDir }, (t) => lines.push(t)), 3);
    assert.is(
      lines[0],
      'vigil first boot: vigil-setup.txt REJECTED, nothing applied; details in vigil-setup.result.txt\n',
    );
    assert.match(lines[1]!, /^ {2}line 1: hostname: must be letters, digits and inner hyphens/);
  } finally {
    c.remove();
  }
});

test.run();
