import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { runFirstBoot, type FirstBootOptions } from '../../src/first-boot/apply.js';
import { verifyPassword } from '../../src/auth/passwords.js';
import { readStatus } from '../../src/first-boot/status.js';
import { PROVISION_FILE, readProvisionedAdmin } from '../../src/init/provisioned-admin.js';
import { wpaPsk } from '../../src/first-boot/render.js';
import { generateSshHostKeys } from '../../src/first-boot/system-files.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO1t4ymCdMbDS7oPIgpL08Fo77P9ANShbZKHBaaxDC9n installer@laptop';
const FAST_HASH = { N: 1024, r: 8, p: 1 };

interface Box {
  boot: string;
  root: string;
  data: string;
  options: FirstBootOptions;
  remove(): void;
  hostKeyRuns: number;
}

/** A temporary card: boot partition, a root with a zoneinfo tree, an empty data dir. */
async function makeBox(): Promise<Box> {
  const dir = tempDir('vigil-first-boot-');
  const boot = join(dir.path, 'boot');
  const root = join(dir.path, 'root');
  const data = join(dir.path, 'data');
  for (const d of [boot, join(root, 'usr/share/zoneinfo/Europe'), join(root, 'usr/share/zoneinfo/Etc'), data])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(root, 'usr/share/zoneinfo/Europe/Berlin'), 'TZif');
  writeFileSync(join(root, 'usr/share/zoneinfo/Etc/UTC'), 'TZif');
  const box: Box = {
    boot,
    root,
    data,
    remove: dir.remove,
    hostKeyRuns: 0,
    options: {
      bootDir: boot,
      root,
      dataDir: data,
      now: () => new Date('2026-11-23T22:00:00Z'),
      hash: async (p) => (await import('../../src/auth/passwords.js')).hashPassword(p, FAST_HASH),
      generatePassword: () => 'generated-password-0123',
      sshHostKeys: (r) => {
        box.hostKeyRuns += 1;
        mkdirSync(join(r, 'etc/ssh'), { recursive: true });
        writeFileSync(join(r, 'etc/ssh/ssh_host_ed25519_key'), 'key');
      },
    },
  };
  return box;
}

const read = (path: string): string => readFileSync(path, 'utf8');

test('a valid file is applied to the root, destroyed, and answered by a result file', async () => {
  const box = await makeBox();
  try {
    writeFileSync(
      join(box.boot, 'vigil-setup.txt'),
      [
        'instance_name = Warehouse 3',
        'admin_password = correct horse battery',
        'hostname = vigil-w3',
        'timezone = Europe/Berlin',
        'network = static',
        'address = 192.168.1.50/24',
        'gateway = 192.168.1.1',
        'dns = 192.168.1.1',
        'wifi_ssid = Warehouse',
        'wifi_passphrase = a long wifi passphrase',
        'wifi_country = DE',
        'ntp = ntp1.example.net',
        `ssh_authorized_key = ${KEY}`,
      ].join('\n'),
    );
    const outcome = await runFirstBoot(box.options);
    assert.is(outcome.kind, 'applied');

    assert.not.ok(existsSync(join(box.boot, 'vigil-setup.txt')));
    assert.is(read(join(box.root, 'etc/hostname')), 'vigil-w3\n');
    assert.match(read(join(box.root, 'etc/hosts')), /^127\.0\.1\.1\tvigil-w3$/m);
    assert.is(readlinkSync(join(box.root, 'etc/localtime')), '/usr/share/zoneinfo/Europe/Berlin');
    assert.is(
      read(join(box.root, 'etc/systemd/network/20-vigil-wired.network')),
      '# Managed by `vigil first-boot` from vigil-setup.txt (docs/first-boot.md).\n[Match]\nName=eth* en*\n\n[Network]\nAddress=192.168.1.50/24\nGateway=192.168.1.1\nDNS=192.168.1.1\n',
    );
    const wpa = read(join(box.root, 'etc/wpa_supplicant/wpa_supplicant-wlan0.conf'));
    assert.match(wpa, /\tssid=57617265686f757365\n/); // 'Warehouse' in hex
    assert.match(wpa, new RegExp(`\\tpsk=${wpaPsk('Warehouse', 'a long wifi passphrase')}\\n`));
    assert.not.ok(wpa.includes('a long wifi passphrase'));
    assert.is(statSync(join(box.root, 'etc/wpa_supplicant/wpa_supplicant-wlan0.conf')).mode & 0o777, 0o600);
    assert.is(
      readlinkSync(join(box.root, 'etc/systemd/system/multi-user.target.wants/wpa_supplicant@wlan0.service')),
      '/usr/lib/systemd/system/wpa_supplicant@.service',
    );
    assert.is(
      read(join(box.root, 'etc/systemd/timesyncd.conf.d/50-vigil.conf')).split('\n').slice(1).join('\n'),
      '[Time]\nNTP=ntp1.example.net\n',
    );
    assert.is(read(join(box.root, 'root/.ssh/authorized_keys')), `${KEY}\n`);
    assert.is(
      readlinkSync(join(box.root, 'etc/systemd/system/multi-user.target.wants/ssh.service')),
      '/usr/lib/systemd/system/ssh.service',
    );
    assert.is(box.hostKeyRuns, 1);

    const admin = readProvisionedAdmin(box.data);
    assert.ok(admin);
    assert.is(admin!.instance_name, 'Warehouse 3');
    assert.ok(await verifyPassword('correct horse battery', admin!.password_hash));
    assert.is(statSync(join(box.data, PROVISION_FILE)).mode & 0o777, 0o600);

    const result = read(join(box.boot, 'vigil-setup.result.txt'));
    assert.match(result, /vigil-setup\.txt was applied, then destroyed/);
    assert.match(result, /wired network: static 192\.168\.1\.50\/24 via 192\.168\.1\.1, DNS 192\.168\.1\.1/);
    assert.not.ok(result.includes('correct horse battery'));
    assert.not.ok(result.includes('a long wifi passphrase'));
    const status = readStatus(box.data);
    assert.equal(status.kind === 'ok' ? [status.status.outcome, status.status.errors] : null, ['applied', []]);
  } finally {
    box.remove();
  }
});

test('a wrong file changes nothing, is still destroyed, and the result names each wrong line', async () => {
  const box = await makeBox();
  try {
    writeFileSync(join(box.root, 'etc-marker'), '');
    writeFileSync(
      join(box.boot, 'vigil-setup.txt'),
      'admin_password = correct horse battery\nhostname = ok-name\nnetwork = static\ntimezone = Atlantis/Capital\n',
    );
    const outcome = await runFirstBoot(box.options);
    assert.is(outcome.kind, 'rejected');
    assert.not.ok(existsSync(join(box.boot, 'vigil-setup.txt')));
    assert.not.ok(existsSync(join(box.root, 'etc/hostname')));
    assert.not.ok(existsSync(join(box.data, PROVISION_FILE)));
    const result = read(join(box.boot, 'vigil-setup.result.txt'));
    assert.match(result, /was NOT applied: nothing was changed/);
    assert.match(result, / {2}line 3: network: static needs both address and gateway\r\n/);
    assert.match(
      result,
      / {2}line 4: timezone: is not a known time zone \(e\.g\. Europe\/Berlin, UTC\) \(got 'Atlantis\/Capital'\)\r\n/,
    );
    assert.not.ok(result.includes('correct horse battery'));
    const status = readStatus(box.data);
    assert.ok(status.kind === 'ok' && status.status.outcome === 'rejected' && status.status.errors.length === 2);
  } finally {
    box.remove();
  }
});

test('no admin_password: one is generated, written to the result file, and provisioned', async () => {
  const box = await makeBox();
  try {
    writeFileSync(join(box.boot, 'vigil-setup.txt'), 'hostname = plain\n');
    const outcome = await runFirstBoot(box.options);
    assert.equal(outcome.kind === 'applied' ? outcome.generatedPassword : null, 'generated-password-0123');
    assert.match(
      read(join(box.boot, 'vigil-setup.result.txt')),
      /Generated admin password \(login: admin\): generated-password-0123\r\n/,
    );
    assert.ok(await verifyPassword('generated-password-0123', readProvisionedAdmin(box.data)!.password_hash));
    // Left-out keys get their defaults: DHCP, UTC, SSH off.
    assert.match(read(join(box.root, 'etc/systemd/network/20-vigil-wired.network')), /\nDHCP=yes\n/);
    assert.is(readlinkSync(join(box.root, 'etc/localtime')), '/usr/share/zoneinfo/Etc/UTC');
    assert.not.ok(existsSync(join(box.root, 'root/.ssh/authorized_keys')));
    assert.is(box.hostKeyRuns, 0);
  } finally {
    box.remove();
  }
});

test('a second file describes the whole state: Wi-Fi, NTP and SSH it leaves out are switched off', async () => {
  const box = await makeBox();
  try {
    writeFileSync(
      join(box.boot, 'vigil-setup.txt'),
      `wifi_ssid = Open Cafe\nntp = 10.0.0.1\nssh_authorized_key = ${KEY}\nadmin_password = first password here\n`,
    );
    await runFirstBoot(box.options);
    assert.match(read(join(box.root, 'etc/wpa_supplicant/wpa_supplicant-wlan0.conf')), /\tkey_mgmt=NONE\n/);
    writeFileSync(join(box.data, 'vigil.db'), ''); // the gateway has started since
    writeFileSync(join(box.boot, 'vigil-setup.txt'), 'hostname = second\n');
    const outcome = await runFirstBoot(box.options);
    assert.equal(outcome.kind === 'applied' ? outcome.generatedPassword : 'x', null);
    for (const gone of [
      'etc/wpa_supplicant/wpa_supplicant-wlan0.conf',
      'etc/systemd/system/multi-user.target.wants/wpa_supplicant@wlan0.service',
      'etc/systemd/timesyncd.conf.d/50-vigil.conf',
      'root/.ssh/authorized_keys',
      'etc/systemd/system/multi-user.target.wants/ssh.service',
    ]) {
      assert.not.ok(existsSync(join(box.root, gone)) || isLink(join(box.root, gone)), gone);
    }
    assert.is(read(join(box.root, 'etc/hostname')), 'second\n');
  } finally {
    box.remove();
  }
});

test('without a setup file nothing is read or written, on the first boot as on any later one', async () => {
  const box = await makeBox();
  try {
    assert.equal(await runFirstBoot(box.options), { kind: 'absent' });
    assert.equal(readStatus(box.data), { kind: 'none' });
    assert.equal(readdirSync(box.data), []);
    assert.not.ok(existsSync(join(box.root, 'etc')));
    assert.not.ok(existsSync(join(box.boot, 'vigil-setup.result.txt')));
  } finally {
    box.remove();
  }
});

test('deleting first-boot-status.json does not run first boot again once the setup file is consumed', async () => {
  const box = await makeBox();
  try {
    writeFileSync(join(box.boot, 'vigil-setup.txt'), 'hostname = first\nadmin_password = correct horse battery\n');
    assert.is((await runFirstBoot(box.options)).kind, 'applied');
    // The gateway's user (it owns the data dir) deletes the status file and the provisioned account,
    // and the box reboots: the file that triggered first boot is gone, so nothing runs as root.
    rmSync(join(box.data, 'first-boot-status.json'));
    rmSync(join(box.data, PROVISION_FILE));
    writeFileSync(join(box.root, 'etc/hostname'), 'changed-since\n');
    assert.equal(await runFirstBoot(box.options), { kind: 'absent' });
    assert.equal(readdirSync(box.data), []);
    assert.is(read(join(box.root, 'etc/hostname')), 'changed-since\n');
  } finally {
    box.remove();
  }
});

test('a setup file present on a later boot runs first boot again', async () => {
  const box = await makeBox();
  try {
    writeFileSync(join(box.boot, 'vigil-setup.txt'), 'hostname = first\n');
    await runFirstBoot(box.options);
    writeFileSync(join(box.data, 'vigil.db'), ''); // the gateway has started since
    writeFileSync(join(box.boot, 'vigil-setup.txt'), 'hostname = second\n');
    assert.is((await runFirstBoot(box.options)).kind, 'applied');
    assert.is(read(join(box.root, 'etc/hostname')), 'second\n');
    assert.not.ok(existsSync(join(box.boot, 'vigil-setup.txt')));
  } finally {
    box.remove();
  }
});

test('the setup file is overwritten with zeros before it is removed', async () => {
  const box = await makeBox();
  try {
    const setup = join(box.boot, 'vigil-setup.txt');
    writeFileSync(setup, 'admin_password = correct horse battery\n');
    // A hard link keeps the inode reachable after the unlink, so the test can read what is left on disk.
    const { linkSync } = await import('node:fs');
    linkSync(setup, join(box.root, 'witness'));
    await runFirstBoot(box.options);
    const left = readFileSync(join(box.root, 'witness'));
    assert.is(left.length, 'admin_password = correct horse battery\n'.length);
    assert.ok(left.every((b) => b === 0));
  } finally {
    box.remove();
  }
});

test('host keys are made on the box by ssh-keygen, under the target root, and kept on a second run', async () => {
  const box = await makeBox();
  try {
    generateSshHostKeys(box.root);
    const key = join(box.root, 'etc/ssh/ssh_host_ed25519_key');
    const first = read(key);
    assert.match(first, /^-----BEGIN OPENSSH PRIVATE KEY-----/);
    assert.is(statSync(key).mode & 0o777, 0o600);
    generateSshHostKeys(box.root);
    assert.is(read(key), first);
  } finally {
    box.remove();
  }
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

test.run();
