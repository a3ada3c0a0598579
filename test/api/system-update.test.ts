/**
 * POST /api/system/update, /update/acknowledge, /reboot and the update part of GET /api/system over real
 * HTTP on loopback (docs/updates.md "API"), with real bundles, the real `rauc info` and the fake rauc of
 * test/helpers/rauc-fixture.ts: installed and reported; refused with its code and nothing changed; only
 * `system_update` opens it; a host without A/B slots answers 503 and `slots: null`; a large upload is
 * streamed to disk, not held in memory.
 */
import { createAdaptorServer } from '@hono/node-server';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import type { ApiDeps } from '../../src/api/deps.js';
import { readUpdateRecord, writeUpdateRecord } from '../../src/update/update-record.js';
import { UpdateSystem } from '../../src/update/update-system.js';
import { corrupted, fakeBox, makeBundle, makeKeys, type FakeBox, type Keys } from '../helpers/rauc-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';
import { ADMIN, TEXT, VIEWER, createHarness, type Harness } from './harness.js';
import { freePort } from '../helpers/net.js';
import { defaultSettings } from '../../src/settings/schema.js';
import { UpdateChannel } from '../../src/update/update-channel.js';

const fixtures = tempDir('vigil-bundles-');
let keys: Keys;
let good: string;
let older: string;
test.before(() => {
  keys = makeKeys(join(fixtures.path, 'keys'));
  good = makeBundle(fixtures.path, keys, { version: '1.3.0' });
  older = makeBundle(fixtures.path, keys, { version: '1.1.0' });
});
test.after(() => fixtures.remove());

let h: Harness;
let box: FakeBox;
let server: Server;
let base: string;
let granted: string;
let admin: string;
let reconciled: number;
let channelUrl: string;
let stopChannel: () => Promise<void> = async () => undefined;

async function serve(update: boolean): Promise<void> {
  const system = new UpdateSystem({
    dataDir: h.dataDir,
    version: '1.2.0',
    clock: h.clock,
    logger: h.deps.logger,
    rauc: { bin: box.rauc, extraArgs: [`--keyring=${keys.ca}`] },
    cmdlinePath: box.cmdline,
    bootEnvPath: box.bootEnv,
    bootId: () => 'boot-1',
  });
  const channel = new UpdateChannel({
    system,
    settings: () => ({ ...defaultSettings().updates, channel_url: channelUrl }),
    instanceId: async () => 'box-36',
    health: h.deps.health,
    lastAlarmAt: () => null,
    reconcile: () => undefined,
    keyring: keys.ca,
    runtimeDir: h.dataDir,
  });
  const deps: ApiDeps = {
    ...h.deps,
    system: {
      ...h.deps.system!,
      ...(update ? { update: { system, reconcile: () => void (reconciled += 1), channel } } : {}),
    },
  };
  await channel.start();
  stopChannel = () => channel.stop();
  server = createAdaptorServer({ fetch: createApp(deps).fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test.before.each(async () => {
  h = await createHarness();
  box = fakeBox(join(h.dataDir, 'box'));
  await h.store.write.grants.set(VIEWER.id, ['system_update'], 'test');
  granted = await h.token(VIEWER.id);
  admin = await h.token(ADMIN.id);
  reconciled = 0;
  channelUrl = '';
});
test.after.each(async () => {
  await stopChannel();
  (server as unknown as { closeAllConnections(): void }).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

function post(
  path: string,
  token: string | null,
  body?: string | Uint8Array | ReadableStream<Uint8Array>,
): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/octet-stream' },
    ...(body !== undefined ? { body, duplex: 'half' } : {}),
  } as RequestInit);
}

async function report(): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/api/system`, { headers: { Authorization: `Bearer ${granted}` } });
  assert.is(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

test('a bundle is installed through the API and GET /api/system reports the slots and the install', async () => {
  await serve(true);
  const before = await report();
  assert.equal(before.slots, {
    booted: 'A',
    primary: 'A',
    A: { state: 'booted', boot_status: 'good', version: '1.2.0', installed_at: null, tries_left: 3, trial: false },
    B: { state: 'inactive', boot_status: 'good', version: null, installed_at: null, tries_left: 3, trial: false },
  });
  assert.equal([before.update, before.rollback_unacknowledged], [null, false]);

  const res = await post('/api/system/update', granted, readFileSync(good));
  assert.is(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { success: boolean; update: Record<string, unknown>; applied_at: string };
  assert.equal(body, {
    success: true,
    update: {
      from_version: '1.2.0',
      to_version: '1.3.0',
      slot: 'B',
      installed_at: new Date(h.clock.now()).toISOString(),
      outcome: 'pending',
      reason: null,
      acknowledged_at: null,
    },
    applied_at: 'next reboot',
  });
  assert.is(reconciled, 1, 'the monitor is told, so update_installed is journaled at once');
  const after = await report();
  const slots = after.slots as Record<string, Record<string, unknown>>;
  assert.equal([slots.primary, slots.B!.version, slots.B!.trial], ['B', '1.3.0', true]);
  assert.equal(after.update, body.update);
});

test('refusals answer CODE: message as plain text and change nothing', async () => {
  await serve(true);
  const bad = await post('/api/system/update', granted, readFileSync(corrupted(good)));
  assert.is(bad.status, 400);
  assert.is(bad.headers.get('content-type'), TEXT);
  assert.match(await bad.text(), /^CORRUPTED: the bundle payload is corrupted/);
  const old = await post('/api/system/update', granted, readFileSync(older));
  assert.equal(
    [old.status, await old.text()],
    [400, "OLDER: the bundle's version 1.1.0 is older than the running 1.2.0; allow a downgrade to install it"],
  );
  const empty = await post('/api/system/update', granted);
  assert.equal([empty.status, await empty.text()], [400, 'NO_BUNDLE: no bundle was sent']);
  const query = await post('/api/system/update?allow_downgrade=maybe', granted, 'x');
  assert.equal([query.status, await query.text()], [400, 'allow_downgrade: must be 1 or 0']);
  assert.equal(box.calls(), [], 'rauc install never ran');
  assert.is(readUpdateRecord(h.dataDir).install, null);
  assert.not.ok(existsSync(join(h.dataDir, 'update', 'incoming.raucb')));
  const allowed = await post('/api/system/update?allow_downgrade=1', granted, readFileSync(older));
  assert.is(allowed.status, 200);
});

test('only system_update opens the update paths: 401 anonymous, 403 every record scope, 405 with Allow', async () => {
  await serve(true);
  for (const path of [
    '/api/system/update',
    '/api/system/update/acknowledge',
    '/api/system/update/check',
    '/api/system/reboot',
  ]) {
    const anonymous = await post(path, null, 'x');
    assert.is(anonymous.status, 401, path);
    const forbidden = await post(path, admin, 'x');
    assert.is(forbidden.status, 403, path);
    const get = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${granted}` } });
    assert.equal([get.status, get.headers.get('allow')], [405, 'POST'], path);
  }
  assert.equal(box.calls(), []);
  assert.not.ok(existsSync(join(h.dataDir, 'system', 'reboot-request')));
});

test('a rollback is reported until acknowledged; acknowledging twice is 409', async () => {
  await serve(true);
  const none = await post('/api/system/update/acknowledge', granted);
  assert.equal([none.status, await none.text()], [409, 'NO_ROLLBACK: there is no rollback to acknowledge']);
  writeUpdateRecord(h.dataDir, {
    install: {
      from_version: '1.2.0',
      to_version: '1.3.0',
      slot: 'B',
      installed_at: '2026-01-01T00:00:00.000Z',
      boot_id: 'boot-0',
      outcome: 'rolled_back',
      reason: 'the box booted slot A again instead of B',
      journaled: ['update_installed', 'update_rolled_back'],
      acknowledged_at: null,
    },
  });
  assert.is((await report()).rollback_unacknowledged, true);
  const ack = await post('/api/system/update/acknowledge', granted);
  assert.is(ack.status, 200);
  assert.is(
    ((await ack.json()) as { update: { acknowledged_at: string } }).update.acknowledged_at,
    new Date(h.clock.now()).toISOString(),
  );
  assert.is((await report()).rollback_unacknowledged, false);
  assert.is((await post('/api/system/update/acknowledge', granted)).status, 409);
});

test('the update channel: none configured is 409 NO_CHANNEL; a check answers with its facts, also in GET /api/system', async () => {
  await serve(true);
  assert.is((await report()).channel && ((await report()).channel as { url: unknown }).url, null);
  const none = await post('/api/system/update/check', granted);
  assert.equal(
    [none.status, await none.text()],
    [409, 'NO_CHANNEL: no update channel is configured (settings updates.channel_url)'],
  );
  // A channel nobody answers at: the check fails, says why, and changes nothing.
  const port = await freePort();
  channelUrl = `https://127.0.0.1:${port}/stable/channel.cms`;
  const res = await post('/api/system/update/check', granted);
  assert.is(res.status, 200);
  const body = (await res.json()) as { success: boolean; channel: { state: string; error: { code: string } | null } };
  assert.equal([body.success, body.channel.state, body.channel.error?.code], [true, 'error', 'UNREACHABLE']);
  const facts = (await report()).channel as { url: string; error: { code: string } };
  assert.equal([facts.url, facts.error.code], [channelUrl, 'UNREACHABLE']);
  assert.equal(box.calls(), []);
});

test('reboot writes the request the image reboots on', async () => {
  await serve(true);
  const res = await post('/api/system/reboot', granted);
  assert.equal([res.status, await res.json()], [200, { success: true }]);
  const line = readFileSync(join(h.dataDir, 'system', 'reboot-request'), 'utf8');
  assert.equal(JSON.parse(line), {
    reason: `requested by user:${VIEWER.id}`,
    at: new Date(h.clock.now()).toISOString(),
  });
  assert.ok(line.endsWith('}\n') && line.split('\n').length === 2, 'one JSON line');
});

test('without A/B updates: slots null, install and reboot 503 with their codes', async () => {
  await serve(false);
  const facts = await report();
  assert.equal([facts.slots, facts.update, facts.rollback_unacknowledged], [null, null, false]);
  const install = await post('/api/system/update', granted, readFileSync(good));
  assert.equal(
    [install.status, await install.text()],
    [503, 'UPDATE_UNAVAILABLE: system updates are not available on this system (no A/B slots or no RAUC)'],
  );
  const reboot = await post('/api/system/reboot', granted);
  assert.equal(
    [reboot.status, await reboot.text()],
    [503, 'REBOOT_UNAVAILABLE: this system cannot be rebooted from the gateway'],
  );
});

test('a 256 MiB upload is streamed to disk: the gateway does not grow by its size', async () => {
  await serve(true);
  const chunk = Buffer.alloc(1024 * 1024, 7);
  let sent = 0;
  const total = 256;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === total) return controller.close();
      sent += 1;
      controller.enqueue(chunk);
    },
  });
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  const res = await post('/api/system/update', granted, body as unknown as string);
  clearInterval(sampler);
  assert.is(res.status, 400);
  assert.match(await res.text(), /^BAD_BUNDLE: /);
  const grew = (rssPeak - rssBefore) / 1024 ** 2;
  if (process.env.VIGIL_PRINT_FIGURES) console.log(`rss grew ${grew.toFixed(1)} MiB`);
  assert.ok(grew < 128, `RSS grew by ${grew.toFixed(0)} MiB for a 256 MiB upload`);
  assert.not.ok(existsSync(join(h.dataDir, 'update', 'incoming.raucb')));
});

test.run();
