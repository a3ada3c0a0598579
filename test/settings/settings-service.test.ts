/**
 * SettingsService: load at start, validated saves, one update at a time, isolated listeners,
 * a failed save changes nothing; and one round trip through the REAL SQLite store.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError, type VigilError } from '../../src/core/errors.js';
import { createLogger, silentLogger } from '../../src/core/logger.js';
import { defaultSettings, type Settings } from '../../src/settings/schema.js';
import { SettingsService, type SettingsStore } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';
import { sleep } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { SECRET64, testEnv, user } from './support.js';

class MemoryRepo implements SettingsStore {
  saved: Settings[] = [];
  failNext = false;
  constructor(private stored: unknown = null) {}
  readonly settings = { load: (): unknown => this.stored };
  readonly write = {
    settings: {
      save: async (settings: Settings): Promise<void> => {
        if (this.failNext) throw new Error('disk full');
        this.saved.push(structuredClone(settings));
        this.stored = structuredClone(settings);
      },
    },
  };
}

async function started(
  store: SettingsStore = new MemoryRepo(),
  env = testEnv(),
  logger = silentLogger,
): Promise<SettingsService> {
  const service = new SettingsService({ store, env, logger });
  await service.start();
  return service;
}

test('with nothing stored the service starts with the defaults and saves nothing', async () => {
  const repo = new MemoryRepo();
  const service = await started(repo);
  assert.equal(service.current(), defaultSettings());
  assert.equal(repo.saved, []);
});

test('stored settings from a newer version load: an internal event type this build does not know is left out', async () => {
  // A box rolled back after an update starts the older build on settings the newer one saved (docs/store.md).
  const defaults = defaultSettings().internal_events;
  const newer = [
    { type: 'update_postponed', classificator: 'E', event_code: '417', group_no: '00', zone_no: '000', name: 'Later' },
    ...defaults,
  ];
  const service = await started(new MemoryRepo({ general: { instance_name: 'newer box' }, internal_events: newer }));
  assert.is(service.current().general.instance_name, 'newer box');
  assert.equal(service.current().internal_events, defaults);
  const update = await service.update({ internal_events: newer });
  assert.not.ok(update.ok, 'an update through the API still refuses the unknown type');
});

test('stored settings from an older version gain the defaults of new fields; invalid ones stop the start', async () => {
  const service = await started(new MemoryRepo({ general: { instance_name: 'old box' }, users: [] }));
  assert.is(service.current().general.instance_name, 'old box');
  assert.is(service.current().general.synchronize_device_time_interval, 1440);
  assert.is(service.current().api.api_port, 8443);
  const broken = new SettingsService({
    store: new MemoryRepo({ api: { api_port: 0 } }),
    env: testEnv(),
    logger: silentLogger,
  });
  try {
    await broken.start();
    assert.unreachable('start should fail');
  } catch (err) {
    assert.ok(isVigilError(err, 'INVALID_SETTINGS'));
    assert.equal((err as VigilError).context, ['api.api_port: must be between 1 and 65535']);
  }
});

test('an accepted update is saved, becomes current and reaches every listener with next and previous', async () => {
  const repo = new MemoryRepo();
  const lines: string[] = [];
  const service = await started(
    repo,
    testEnv(),
    createLogger('settings', (l) => lines.push(l)),
  );
  const seen: string[] = [];
  service.onChange(() => {
    throw new Error('broken consumer');
  });
  service.onChange(async () => {
    throw new Error('broken async consumer');
  });
  const off = service.onChange((next, previous) =>
    seen.push(`${previous.general.instance_name}->${next.general.instance_name}`),
  );
  const result = await service.update({ general: { instance_name: 'north' } });
  assert.ok(result.ok);
  assert.is(service.current().general.instance_name, 'north');
  assert.equal(
    repo.saved.map((s) => s.general.instance_name),
    ['north'],
  );
  assert.equal(seen, ['vigil->north']);
  await sleep(0);
  assert.is(lines.filter((l) => l.includes('settings listener failed')).length, 2);
  off();
  await service.update({ general: { instance_name: 'south' } });
  assert.equal(seen, ['vigil->north']);
});

test('a refused update saves nothing, tells no listener and keeps the current settings', async () => {
  const repo = new MemoryRepo();
  const service = await started(repo);
  let calls = 0;
  service.onChange(() => calls++);
  const before = service.current();
  const result = await service.update({ api: { api_port: 0 }, general: { instance_name: 'x' } });
  assert.equal(result, { ok: false, errors: ['api.api_port: must be between 1 and 65535'] });
  assert.equal(repo.saved, []);
  assert.is(calls, 0);
  assert.is(service.current(), before);
});

test('a failed save is a STORE_FAILURE and nothing changes', async () => {
  const repo = new MemoryRepo();
  const service = await started(repo);
  let calls = 0;
  service.onChange(() => calls++);
  repo.failNext = true;
  try {
    await service.update({ general: { instance_name: 'x' } });
    assert.unreachable('update should fail');
  } catch (err) {
    assert.ok(isVigilError(err, 'STORE_FAILURE'));
  }
  assert.is(service.current().general.instance_name, 'vigil');
  assert.is(calls, 0);
  repo.failNext = false;
  assert.ok((await service.update({ general: { instance_name: 'y' } })).ok);
});

test('concurrent updates run one at a time in the order they were made', async () => {
  const repo = new MemoryRepo();
  const env = testEnv();
  // The first update's hash is slow: without the queue the second would finish first.
  env.hash = async (password) => {
    if (password === 'slow-password') await sleep(60);
    return `hash-of-${password}`;
  };
  const service = await started(repo, env);
  const first = service.update({
    users: [user(1, { password: 'slow-password' })],
    general: { instance_name: 'first' },
  });
  const second = service.update({ general: { instance_name: 'second' } });
  const [a, b] = await Promise.all([first, second]);
  assert.ok(a.ok && b.ok);
  assert.equal(
    repo.saved.map((s) => s.general.instance_name),
    ['first', 'second'],
  );
  // The second update was judged against the first one's result: the user is still there.
  assert.equal(
    service.current().users.map((u) => u.password_hash),
    ['hash-of-slow-password'],
  );
});

test('current() is frozen all the way down', async () => {
  const service = await started();
  const s = service.current() as Settings;
  assert.throws(() => {
    s.general.instance_name = 'changed';
  });
  assert.throws(() => {
    s.receivers.tcp_receivers.push(s.receivers.tcp_receivers[0]!);
  });
});

test('publicView leaves out the JWT secret and password hashes', async () => {
  const service = await started();
  await service.update({ api: { api_jwt_secret: SECRET64 }, users: [user(1)] });
  const view = service.publicView();
  assert.not.ok(JSON.stringify(view).includes(SECRET64));
  assert.not.ok('password_hash' in view.users[0]!);
  assert.is(service.current().api.api_jwt_secret, SECRET64);
});

test('replaceForInit stores complete settings after the schema and cross-field rules', async () => {
  const repo = new MemoryRepo();
  const service = await started(repo);
  const init = defaultSettings();
  init.api.api_jwt_secret = SECRET64;
  init.users.push({
    id: 1,
    login: 'admin',
    password_hash: 'scrypt$x',
    token_time: 60,
    scopes: ['settings', 'users'],
    visible_receivers: { all: true, custom: [] },
  });
  await service.replaceForInit(init);
  assert.is(repo.saved.length, 1);
  assert.equal(service.current(), init);
  const bad = defaultSettings();
  bad.users.push({ ...init.users[0]!, visible_receivers: { all: false, custom: [] } });
  try {
    await service.replaceForInit(bad);
    assert.unreachable('should be refused');
  } catch (err) {
    assert.ok(isVigilError(err, 'INVALID_SETTINGS'));
  }
  assert.is(repo.saved.length, 1);
});

test('settings survive a restart through the real SQLite store', async () => {
  const dir = tempDir('vigil-settings-store-');
  try {
    const store = new Store(join(dir.path, 'vigil.db'), silentLogger);
    await store.start();
    const service = await started(store);
    await service.update({ general: { instance_name: 'persisted' }, users: [user(1)], outputs: [] });
    const saved = service.current();
    await store.stop();

    const reopened = new Store(join(dir.path, 'vigil.db'), silentLogger);
    await reopened.start();
    const again = await started(reopened);
    assert.equal(again.current(), saved);
    await reopened.stop();
  } finally {
    dir.remove();
  }
});

test.run();
