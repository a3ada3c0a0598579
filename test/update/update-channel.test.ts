/**
 * The update channel (src/update/update-channel.ts) against a real HTTPS server on loopback
 * (image/tools/channel-server.ts), manifests signed with openssl by the bundles' test PKI and verified by
 * the real openssl, real bundles checked by the real `rauc info` (the fake rauc fetches a streamed bundle
 * whole and hands it to the same checks). Every failure mode — server down, 404, 500, a trickle, another
 * CA, an expired, replayed or foreign manifest, a truncated or unsigned bundle — is reported and changes
 * no slot; the waves, the window, an output backlog and a recent alarm hold an install back; a good
 * manifest installs, records and asks for the reboot; a version that rolled back is not tried again.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ChannelServer } from '../../image/tools/channel-server.js';
import { systemClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import type { UpdatesSettings } from '../../src/settings/schema.js';
import { waveBucket } from '../../src/update/channel-manifest.js';
import { rebootRequestPath } from '../../src/update/reboot-request.js';
import { UpdateChannel, type ChannelFacts } from '../../src/update/update-channel.js';
import { readUpdateRecord, writeUpdateRecord } from '../../src/update/update-record.js';
import { UpdateSystem } from '../../src/update/update-system.js';
import {
  fakeBox,
  makeBundle,
  makeKeys,
  truncated,
  unsigned,
  type FakeBox,
  type Keys,
} from '../helpers/rauc-fixture.js';
import { tool } from '../helpers/system-tools.js';
import { tempDir } from '../helpers/temp-dir.js';
import { makeTlsFiles, type TlsFiles } from '../helpers/tls-files.js';

// Places in the rollout (waveBucket): box-36 is among the first 5 %, box-55 among the last.
const EARLY = 'box-36';
const LATE = 'box-55';
const MANIFEST = '/stable/channel.cms';

let dir: ReturnType<typeof tempDir>;
let keys: Keys;
let tls: TlsFiles;
let server: ChannelServer;
let box: FakeBox;
let health: HealthRegistry;
let channel: UpdateChannel | null;
let settings: UpdatesSettings;
let instanceId: string;
let lastAlarmAt: number | null;
let serial: number;
let bundles: { good: string; older: string; cut: string; unsigned: string; foreign: string };

test.before(() => {
  dir = tempDir();
  keys = makeKeys(join(dir.path, 'keys'));
  tls = makeTlsFiles();
  const made = join(dir.path, 'made');
  mkdirSync(made);
  const good = makeBundle(made, keys, { version: '1.4.0' });
  bundles = {
    good,
    older: makeBundle(made, keys, { version: '1.2.0' }),
    cut: truncated(good, Math.floor(statSync(good).size / 2)),
    unsigned: unsigned(good),
    foreign: makeBundle(made, keys, { version: '1.4.0', other: true }),
  };
  mkdirSync(join(dir.path, 'www', 'stable'), { recursive: true });
  for (const [name, file] of Object.entries(bundles))
    copyFileSync(file, join(dir.path, 'www', 'stable', `${name}.raucb`));
});
test.after(() => {
  tls.remove();
  dir.remove();
});

test.before.each(async () => {
  server = new ChannelServer({
    root: join(dir.path, 'www'),
    key: readFileSync(tls.serverKey, 'utf8'),
    cert: readFileSync(tls.serverCert, 'utf8'),
  });
  await server.start();
  const data = join(dir.path, `data-${Date.now()}`);
  mkdirSync(data);
  box = fakeBox(join(data, 'box'));
  health = new HealthRegistry();
  channel = null;
  instanceId = EARLY;
  lastAlarmAt = null;
  serial = 100;
  settings = {
    channel_url: `https://127.0.0.1:${server.port}${MANIFEST}`,
    ca_file: tls.caCert,
    poll_interval_minutes: 60,
    window_start: '00:00',
    window_end: '00:00',
    auto_install: true,
    auto_reboot: true,
  };
  publish({});
});
test.after.each(async () => {
  await channel?.stop();
  await server.stop();
});

function dataDir(): string {
  return join(box.rauc, '..', '..');
}

/** Writes and signs a manifest as `./build.sh channel` does (openssl cms), over the defaults. */
function publish(fields: Record<string, unknown>, signer: { cert: string; key: string } = keys): void {
  const now = Date.now();
  const manifest = {
    format: 'vigil-channel-1',
    compatible: 'vigil-rpi-arm64',
    serial: serial++,
    issued_at: new Date(now - 60_000).toISOString(),
    expires_at: new Date(now + 7 * 86_400_000).toISOString(),
    version: '1.4.0',
    bundle_url: 'good.raucb',
    waves: [{ from: new Date(now - 60_000).toISOString(), percent: 5 }],
    ...fields,
  };
  const json = join(dir.path, 'manifest.json');
  writeFileSync(json, JSON.stringify(manifest));
  execFileSync(tool('openssl'), [
    'cms',
    '-sign',
    '-binary',
    '-nodetach',
    '-outform',
    'PEM',
    '-in',
    json,
    '-signer',
    signer.cert,
    '-inkey',
    signer.key,
    '-out',
    join(dir.path, 'www', 'stable', 'channel.cms'),
  ]);
}

async function check(): Promise<ChannelFacts> {
  if (!channel) {
    const system = new UpdateSystem({
      dataDir: dataDir(),
      version: '1.3.0',
      clock: systemClock,
      logger: silentLogger,
      rauc: { bin: box.rauc, extraArgs: [`--keyring=${keys.ca}`] },
      cmdlinePath: box.cmdline,
      bootEnvPath: box.bootEnv,
      bootId: () => 'boot-1',
    });
    channel = new UpdateChannel({
      system,
      settings: () => settings,
      instanceId: async () => instanceId,
      health,
      lastAlarmAt: () => lastAlarmAt,
      reconcile: () => undefined,
      keyring: keys.ca,
      runtimeDir: dataDir(),
      fetchTimeoutMs: 1500,
    });
    await channel.start();
  }
  await channel.checkNow();
  for (let i = 0; i < 200 && channel.facts().state === 'installing'; i += 1)
    await new Promise((r) => setTimeout(r, 50));
  return channel.facts();
}

/** Nothing was installed: no rauc install call, no record, the boot state as flashed. */
function unchanged(): void {
  assert.equal(box.calls(), [], 'rauc install never ran');
  assert.is(readUpdateRecord(dataDir()).install, null);
  assert.match(readFileSync(box.bootEnv, 'utf8'), /BOOT_ORDER=A B/);
  assert.not.ok(existsSync(rebootRequestPath(dataDir())));
}

test('the test ids sit where the waves need them', () => {
  assert.ok(waveBucket(EARLY) < 5 && waveBucket(LATE) > 50);
});

for (const [name, arrange, code, words] of [
  ['a server that is down', async () => server.stop(), 'UNREACHABLE', /cannot reach 127\.0\.0\.1/],
  ['a 404', async () => server.misbehave(MANIFEST, { kind: 'status', status: 404 }), 'HTTP_ERROR', /answered 404/],
  ['a 500', async () => server.misbehave(MANIFEST, { kind: 'status', status: 500 }), 'HTTP_ERROR', /answered 500/],
  [
    'a trickle slower than the fetch allows',
    async () => server.misbehave(MANIFEST, { kind: 'slow', bytesPerSecond: 100 }),
    'TIMEOUT',
    /no complete answer/,
  ],
  [
    'another CA on the server',
    async () => (settings = { ...settings, ca_file: tls.wrongCaCert }),
    'TLS',
    /not trusted/,
  ],
  [
    'a manifest signed by another CA',
    async () => publish({}, { cert: keys.otherCert, key: keys.otherKey }),
    'BAD_SIGNATURE',
    /keyring/,
  ],
  [
    'an expired manifest',
    async () => publish({ issued_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-08T00:00:00Z' }),
    'EXPIRED',
    /expired at 2026-01-08/,
  ],
  [
    'a manifest for another board',
    async () => publish({ compatible: 'vigil-rpi-armhf' }),
    'WRONG_COMPATIBLE',
    /vigil-rpi-armhf/,
  ],
] as const) {
  test(`${name}: reported as ${code}, on the System view's facts and the component; no slot changes`, async () => {
    await arrange();
    const facts = await check();
    assert.is(facts.state, 'error');
    assert.is(facts.error?.code, code);
    assert.match(facts.error!.message, words);
    const component = health.get('update-channel')!;
    assert.equal([component.state, component.detail?.startsWith(`${code}: `)], ['degraded', true]);
    unchanged();
  });
}

test('a replayed manifest (an older serial after a newer one) is refused; the newer one stays accepted', async () => {
  settings = { ...settings, auto_install: false };
  serial = 500;
  publish({});
  assert.is((await check()).manifest?.serial, 500);
  serial = 499;
  publish({});
  const facts = await check();
  assert.is(facts.error?.code, 'REPLAYED');
  assert.match(facts.error!.message, /serial 499 is older than the newest this box accepted \(500\)/);
  unchanged();
});

test('not in the current wave: nothing installs until the wave reaches this box', async () => {
  instanceId = LATE;
  const waiting = await check();
  assert.is(waiting.state, 'idle');
  assert.match(
    waiting.decision!,
    /not for this box yet: its place in the rollout is 9\d\.\d, the current wave reaches 5 %/,
  );
  unchanged();
  publish({ waves: [{ from: new Date(Date.now() - 1000).toISOString(), percent: 100 }] });
  const facts = await check();
  assert.is(facts.last_install?.result, 'installed');
  assert.is(readUpdateRecord(dataDir()).install?.to_version, '1.4.0');
});

test('the window, an output backlog and a recent alarm each hold the install back', async () => {
  const hour = new Date().getHours();
  settings = {
    ...settings,
    window_start: `${String((hour + 2) % 24).padStart(2, '0')}:00`,
    window_end: `${String((hour + 3) % 24).padStart(2, '0')}:00`,
  };
  assert.match((await check()).decision!, /waits: outside the maintenance window/);
  settings = { ...settings, window_start: '00:00', window_end: '00:00' };
  health.report('out:cms', 'output', 'ok', null, { backlog: 12 });
  assert.match((await check()).decision!, /waits: output out:cms has undelivered events/);
  health.report('out:cms', 'output', 'ok', null, { backlog: 0 });
  lastAlarmAt = Date.now() - 3 * 60_000;
  const facts = await check();
  assert.equal(
    [facts.state, facts.decision],
    ['waiting', 'version 1.4.0 waits: an alarm 3 min ago: waiting for 10 quiet minutes'],
  );
  unchanged();
});

test('a good manifest: streamed install, the record, then the reboot request; the last install outlives the reboot', async () => {
  const facts = await check();
  assert.is(facts.error, null);
  assert.is(facts.last_install?.result, 'installed');
  assert.match(box.calls()[0]!, /^install https:\/\/127\.0\.0\.1:\d+\/stable\/good\.raucb$/);
  const record = readUpdateRecord(dataDir()).install!;
  assert.equal(
    [record.from_version, record.to_version, record.slot, record.outcome],
    ['1.3.0', '1.4.0', 'B', 'pending'],
  );
  assert.match(readFileSync(rebootRequestPath(dataDir()), 'utf8'), /"reason":"update 1\.4\.0 from the channel"/);
  assert.match(readFileSync(join(dataDir(), 'channel-ca.pem'), 'utf8'), /BEGIN CERTIFICATE/, 'the CA handed to RAUC');
  assert.ok(server.bytesSent('/stable/good.raucb') > 0);
  // The box reboots into it by itself: the next gateway still tells what the channel installed.
  await channel!.stop();
  channel = null;
  const after = await check();
  assert.equal(after.last_install, facts.last_install);
  assert.is(box.calls().length, 1, 'installed once');
});

for (const [name, bundle, words] of [
  ['a truncated bundle', 'cut.raucb', /./],
  ['an unsigned bundle', 'unsigned.raucb', /./],
  ['a bundle signed by another CA', 'foreign.raucb', /./],
  ['a bundle that is not there', 'missing.raucb', /HTTP 404/],
] as const) {
  test(`${name}: RAUC refuses it before writing; INSTALL_FAILED, retried at the next check, no slot changes`, async () => {
    publish({ bundle_url: bundle });
    const facts = await check();
    assert.is(facts.error?.code, 'INSTALL_FAILED');
    assert.match(facts.error!.message, words);
    assert.match(facts.decision!, /not installed \(attempt 1\); the next check tries again/);
    assert.is(readUpdateRecord(dataDir()).install, null);
    assert.match(readFileSync(box.bootEnv, 'utf8'), /BOOT_ORDER=A B/);
    assert.match((await check()).decision!, /attempt 2/);
  });
}

test('a version that rolled back on this box is not tried again; an older one is never installed', async () => {
  writeUpdateRecord(dataDir(), {
    install: {
      from_version: '1.3.0',
      to_version: '1.4.0',
      slot: 'B',
      installed_at: new Date().toISOString(),
      boot_id: 'boot-0',
      outcome: 'rolled_back',
      reason: 'never started',
      journaled: [],
      acknowledged_at: null,
    },
  });
  assert.match((await check()).decision!, /version 1\.4\.0 rolled back on this box: waiting for a newer version/);
  publish({ version: '1.2.0', bundle_url: 'older.raucb' });
  assert.match((await check()).decision!, /offers 1\.2\.0, older than the running 1\.3\.0/);
  assert.equal(box.calls(), []);
});

test.run();
