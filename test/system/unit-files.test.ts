/**
 * The systemd files shipped in systemd/ (docs/watchdog.md), as systemd itself reads them:
 * `systemd-analyze verify` (unknown keys, bad values, missing executables), `systemd-analyze
 * security --offline` (the hardening is applied, the low-ports drop-in loads), `systemd-sysusers`
 * on a temporary root (the vigil user and its groups), and the values the watchdog design needs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const UNIT = join(REPO, 'systemd', 'vigil.service');

/** key -> values, per section (a key may repeat: Environment=). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      current = new Map();
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf('=');
    assert.ok(current && eq > 0, `not a key=value line: ${line}`);
    const key = line.slice(0, eq);
    current!.set(key, [...(current!.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

function value(unit: Map<string, Map<string, string[]>>, section: string, key: string): string | undefined {
  return unit.get(section)?.get(key)?.at(-1);
}

/** The unit as installed on this machine: node where it is here (verify checks the executable exists). */
function installed(dir: string): string {
  const text = readFileSync(UNIT, 'utf8').replace('/usr/bin/node', process.execPath);
  const path = join(dir, 'vigil.service');
  writeFileSync(path, text);
  return path;
}

function analyze(args: string[], unitPath: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(tool('systemd-analyze'), args, {
    env: { ...process.env, SYSTEMD_UNIT_PATH: `${unitPath}:` },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('vigil.service: notify with a watchdog, restart limits that reboot, the vigil user, strict hardening, no capabilities', () => {
  const unit = parseUnit(readFileSync(UNIT, 'utf8'));
  assert.is(value(unit, 'Service', 'Type'), 'notify');
  assert.is(value(unit, 'Service', 'NotifyAccess'), 'main', 'node sends its notifications itself');
  assert.is(value(unit, 'Service', 'WatchdogSec'), '20');
  assert.is(value(unit, 'Service', 'Restart'), 'always');
  assert.is(value(unit, 'Unit', 'StartLimitAction'), 'reboot');
  assert.is(value(unit, 'Unit', 'StartLimitBurst'), '5');
  assert.is(value(unit, 'Service', 'User'), 'vigil');
  assert.is(value(unit, 'Service', 'SupplementaryGroups'), 'dialout');
  assert.is(value(unit, 'Service', 'ProtectSystem'), 'strict');
  const dataDir = /--data-dir (\S+)/.exec(value(unit, 'Service', 'ExecStart')!)![1];
  assert.is(value(unit, 'Service', 'ReadWritePaths'), dataDir, 'the data dir is the only writable path');
  assert.is(value(unit, 'Service', 'NoNewPrivileges'), 'yes');
  assert.is(value(unit, 'Service', 'PrivateTmp'), 'yes');
  assert.is(value(unit, 'Service', 'CapabilityBoundingSet'), '');
  assert.is(value(unit, 'Service', 'AmbientCapabilities'), '');
  // 10,000 device connections plus outputs, API clients and files, with head-room.
  assert.ok(Number(value(unit, 'Service', 'LimitNOFILE')) >= 20_000);
  // /sys must stay writable for GPIO export and /dev visible for serial ports.
  for (const key of [
    'ProtectKernelTunables',
    'PrivateDevices',
    'ProtectClock',
    'DevicePolicy',
    'MemoryDenyWriteExecute',
  ]) {
    assert.is(value(unit, 'Service', key), undefined, `${key} would break GPIO, serial ports or V8`);
  }
});

test('systemd-analyze verify accepts the unit without a warning, alone and with the low-ports drop-in', () => {
  const dir = tempDir('vigil-unit-');
  try {
    const path = installed(dir.path);
    const alone = analyze(['verify', path], dir.path);
    assert.equal([alone.status, alone.stderr.trim()], [0, '']);
    mkdirSync(join(dir.path, 'vigil.service.d'));
    cpSync(
      join(REPO, 'systemd', 'vigil.service.d', 'low-ports.conf'),
      join(dir.path, 'vigil.service.d', 'low-ports.conf'),
    );
    const withDropIn = analyze(['verify', path], dir.path);
    assert.equal([withDropIn.status, withDropIn.stderr.trim()], [0, '']);
  } finally {
    dir.remove();
  }
});

test('systemd-analyze security: no capabilities by default; the drop-in adds exactly CAP_NET_BIND_SERVICE', () => {
  const dir = tempDir('vigil-unit-');
  try {
    const path = installed(dir.path);
    const base = analyze(['security', '--offline=yes', '--no-pager', path], dir.path);
    const exposure = (out: string) => Number(/Overall exposure level for vigil\.service: ([\d.]+)/.exec(out)?.[1]);
    assert.ok(exposure(base.stdout) <= 5, `exposure ${exposure(base.stdout)}`);
    assert.match(base.stdout, /✓ CapabilityBoundingSet=~CAP_NET_\(BIND_SERVICE\|BROADCAST\|RAW\)/);
    mkdirSync(join(dir.path, 'vigil.service.d'));
    cpSync(
      join(REPO, 'systemd', 'vigil.service.d', 'low-ports.conf'),
      join(dir.path, 'vigil.service.d', 'low-ports.conf'),
    );
    const low = analyze(['security', '--offline=yes', '--no-pager', path], dir.path);
    assert.match(low.stdout, /✗ CapabilityBoundingSet=~CAP_NET_\(BIND_SERVICE\|BROADCAST\|RAW\)/);
    assert.match(low.stdout, /✓ CapabilityBoundingSet=~CAP_SYS_ADMIN/);
  } finally {
    dir.remove();
  }
});

test('sysusers: a vigil system user without a login shell, member of dialout', () => {
  const dir = tempDir('vigil-root-');
  try {
    mkdirSync(join(dir.path, 'etc'));
    writeFileSync(join(dir.path, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(join(dir.path, 'etc', 'group'), 'root:x:0:\ndialout:x:20:\n');
    writeFileSync(join(dir.path, 'etc', 'shadow'), '');
    writeFileSync(join(dir.path, 'etc', 'gshadow'), '');
    const run = spawnSync(
      tool('systemd-sysusers'),
      [`--root=${dir.path}`, join(REPO, 'systemd', 'sysusers.d', 'vigil.conf')],
      { encoding: 'utf8' },
    );
    assert.is(run.status, 0, run.stderr);
    const user = readFileSync(join(dir.path, 'etc', 'passwd'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('vigil:'))!
      .split(':');
    assert.ok(Number(user[2]) < 1000, 'a system uid');
    assert.equal([user[5], user[6]], ['/var/lib/vigil', '/usr/sbin/nologin']);
    assert.match(readFileSync(join(dir.path, 'etc', 'group'), 'utf8'), /^dialout:x:20:vigil$/m);
  } finally {
    dir.remove();
  }
});

test('the hardware watchdog drop-in stays under the Pi watchdog maximum (about 15 s)', () => {
  const conf = parseUnit(readFileSync(join(REPO, 'systemd', 'system.conf.d', 'vigil-watchdog.conf'), 'utf8'));
  const seconds = Number(/^(\d+)s$/.exec(value(conf, 'Manager', 'RuntimeWatchdogSec') ?? '')?.[1]);
  assert.ok(seconds > 0 && seconds < 15, `RuntimeWatchdogSec ${seconds}`);
});

test.run();
