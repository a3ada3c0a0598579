/**
 * First boot runs as root over a data dir the gateway's user owns (docs/security.md "Threat model"). That user
 * (uid 4242 here) plants symlinks and files where root is about to write; none of it may turn into a
 * root-owned write, chown or zeroing anywhere else. Runs as root (the build machine); skipped otherwise.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chmodSync,
  chownSync,
  createWriteStream,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { writeBackup } from '../../src/backup/create-backup.js';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { join } from 'node:path';
import { runFirstBoot, type FirstBootOptions } from '../../src/first-boot/apply.js';
import { readStatus, STATUS_FILE } from '../../src/first-boot/status.js';
import { PROVISION_FILE } from '../../src/init/provisioned-admin.js';
import { tempDir } from '../helpers/temp-dir.js';

const SERVICE_UID = 4242;
const asRoot = process.getuid?.() === 0;
const FAST_HASH = { N: 1024, r: 8, p: 1 };
const SECRET = 'root:$y$j9T$secret:20000:0:99999:7:::\n';

interface Card {
  top: string;
  boot: string;
  root: string;
  data: string;
  /** A root-owned file outside the data dir, standing for /etc/shadow. */
  victim: string;
  options: FirstBootOptions;
  remove(): void;
}

function card(dataDir?: (top: string) => string): Card {
  const dir = tempDir('vigil-first-boot-root-');
  const boot = join(dir.path, 'boot');
  const root = join(dir.path, 'root');
  for (const d of [boot, join(root, 'usr/share/zoneinfo/Etc')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, 'usr/share/zoneinfo/Etc/UTC'), 'TZif');
  const data = dataDir ? dataDir(dir.path) : join(dir.path, 'data');
  if (!dataDir) {
    mkdirSync(data, { mode: 0o700 });
    if (asRoot) chownSync(data, SERVICE_UID, SERVICE_UID);
  }
  const victim = join(root, 'shadow');
  writeFileSync(victim, SECRET, { mode: 0o640 });
  return {
    top: dir.path,
    boot,
    root,
    data,
    victim,
    remove: dir.remove,
    options: {
      bootDir: boot,
      root,
      dataDir: data,
      hash: async (p) => (await import('../../src/auth/passwords.js')).hashPassword(p, FAST_HASH),
      sshHostKeys: () => undefined,
    },
  };
}

function assertVictimUntouched(c: Card): void {
  const stat = statSync(c.victim);
  assert.is(readFileSync(c.victim, 'utf8'), SECRET);
  assert.equal([stat.uid, stat.gid, stat.mode & 0o777], [0, 0, 0o640]);
}

test('symlinks the service user plants at the temp and target names in its data dir lead root nowhere', async () => {
  if (!asRoot) return;
  const c = card();
  try {
    // The names the writer used to use (pid-based), and the targets themselves.
    for (const name of [STATUS_FILE, PROVISION_FILE]) {
      symlinkSync(c.victim, join(c.data, `.${name}.${process.pid}.tmp`));
      lchown(join(c.data, `.${name}.${process.pid}.tmp`));
    }
    symlinkSync(c.victim, join(c.data, STATUS_FILE));
    writeFileSync(join(c.boot, 'vigil-setup.txt'), 'admin_password = correct horse battery\n');
    assert.is((await runFirstBoot(c.options)).kind, 'applied');
    assertVictimUntouched(c);
    for (const name of [STATUS_FILE, PROVISION_FILE]) {
      const stat = lstatSync(join(c.data, name));
      assert.ok(stat.isFile(), `${name} is a file of its own`);
      assert.equal([stat.uid, stat.gid], [SERVICE_UID, SERVICE_UID], `${name} is handed to the service user`);
    }
    const status = readStatus(c.data);
    assert.ok(status.kind === 'ok' && status.status.outcome === 'applied');
  } finally {
    c.remove();
  }
});

test('a setup file that is a symlink is neither read through nor zeroed: only the link goes', async () => {
  const c = card();
  try {
    symlinkSync(c.victim, join(c.boot, 'vigil-setup.txt'));
    const outcome = await runFirstBoot(c.options);
    assert.is(outcome.kind, 'rejected');
    assert.match(JSON.stringify(outcome), /applying failed: vigil-setup\.txt is not a regular file/);
    assert.is(readFileSync(c.victim, 'utf8'), SECRET);
    assert.not.ok(existsSync(join(c.boot, 'vigil-setup.txt')) || isLink(join(c.boot, 'vigil-setup.txt')));
  } finally {
    c.remove();
  }
});

test('a data dir the service user could move away (its parent is theirs) is refused before anything is applied', async () => {
  if (!asRoot) return;
  const c = card((top) => {
    const parent = join(top, 'var-lib');
    mkdirSync(join(parent, 'vigil'), { recursive: true });
    chownSync(parent, SERVICE_UID, SERVICE_UID);
    chownSync(join(parent, 'vigil'), SERVICE_UID, SERVICE_UID);
    return join(parent, 'vigil');
  });
  try {
    writeFileSync(join(c.boot, 'vigil-setup.txt'), 'hostname = moved\nadmin_password = correct horse battery\n');
    const outcome = await runFirstBoot(c.options);
    assert.is(outcome.kind, 'rejected');
    assert.match(JSON.stringify(outcome), /unsafe data dir: .*var-lib is owned by uid 4242, not root/);
    assert.not.ok(existsSync(join(c.root, 'etc/hostname')), 'nothing applied');
    assert.not.ok(existsSync(join(c.data, STATUS_FILE)));
    assert.not.ok(existsSync(join(c.data, PROVISION_FILE)));
    assert.match(readFileSync(join(c.boot, 'vigil-setup.result.txt'), 'utf8'), /unsafe data dir/);
    assert.not.ok(existsSync(join(c.boot, 'vigil-setup.txt')), 'the setup file is still consumed');
  } finally {
    c.remove();
  }
});

test('a system directory writable by others is refused before anything is applied', async () => {
  const c = card();
  try {
    mkdirSync(join(c.root, 'etc/systemd/network'), { recursive: true });
    chmodSync(join(c.root, 'etc/systemd/network'), 0o777);
    writeFileSync(join(c.boot, 'vigil-setup.txt'), 'hostname = open\n');
    const outcome = await runFirstBoot(c.options);
    assert.is(outcome.kind, 'rejected');
    assert.match(JSON.stringify(outcome), /etc\/systemd\/network is writable by group or others/);
    assert.not.ok(existsSync(join(c.root, 'etc/hostname')), 'nothing applied');
    assert.not.ok(existsSync(join(c.root, 'etc/systemd/network/20-vigil-wired.network')));
  } finally {
    c.remove();
  }
});

test('a boot dir others can write is not trusted: nothing is read, written or destroyed', async () => {
  const c = card();
  try {
    chmodSync(c.boot, 0o777);
    writeFileSync(join(c.boot, 'vigil-setup.txt'), 'hostname = planted\n');
    let error: unknown = null;
    await runFirstBoot(c.options).catch((err: unknown) => (error = err));
    assert.match(String(error), /boot is writable by group or others/);
    assert.ok(existsSync(join(c.boot, 'vigil-setup.txt')));
    assert.not.ok(existsSync(join(c.root, 'etc/hostname')));
  } finally {
    c.remove();
  }
});

test('a backup staged at first boot is staged as the service user: a staging entry it swaps for a symlink leads root nowhere', async () => {
  if (!asRoot) return;
  const c = card();
  const passphrase = 'Depot north, cabinet 7 key';
  // The service user reaches its data dir (as it does /var/lib/vigil).
  chmodSync(c.top, 0o755);
  try {
    const source = join(c.top, 'old-card');
    const gateway = new Gateway({
      dataDir: source,
      httpPort: await freePort(),
      httpsPort: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    });
    await gateway.start();
    await gateway.stop();
    await writeBackup(
      { dataDir: source, passphrase, journal: false, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26) },
      createWriteStream(join(c.boot, 'vigil-backup.vbk')),
    );
    writeFileSync(join(c.boot, 'vigil-setup.txt'), `restore_passphrase = ${passphrase}\n`);
    // A root-owned directory standing for /etc/cron.d: a file created there runs as root.
    const victimDir = join(c.root, 'cron.d');
    mkdirSync(victimDir, { mode: 0o755 });
    // The service user watches its data dir and swaps each new staging entry for a symlink to it.
    const swapped: string[] = [];
    const watcher = watch(c.data, (_event, name) => {
      if (!name?.startsWith('.restore-')) return;
      const path = join(c.data, name);
      try {
        if (lstatSync(path).isSymbolicLink()) return;
        renameSync(path, join(c.top, `moved-${swapped.length}`));
        symlinkSync(victimDir, path);
        lchown(path);
        swapped.push(name);
      } catch {
        // Gone already: the next one.
      }
    });
    try {
      await runFirstBoot(c.options).catch(() => undefined);
    } finally {
      watcher.close();
    }
    assert.ok(swapped.length > 0, 'the service user swapped a staging entry');
    assert.equal(readdirSync(victimDir), [], 'nothing was written through the symlink');
    const stat = statSync(victimDir);
    assert.equal([stat.uid, stat.gid, stat.mode & 0o777], [0, 0, 0o755], 'nor chowned');
    assertVictimUntouched(c);
  } finally {
    c.remove();
  }
});

function lchown(path: string): void {
  lchownSync(path, SERVICE_UID, SERVICE_UID);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

test.run();
