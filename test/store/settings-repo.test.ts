import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import type { StoredSettings, StoredUser } from '../../src/store/types.js';
import { startStore } from './helpers/store-fixture.js';
import { rejects } from '../helpers/rejects.js';

function user(id: number, login: string, extra: Partial<StoredUser> = {}): StoredUser {
  return {
    id,
    login,
    password_hash: `scrypt$hash-of-${login}`,
    token_time: 60,
    scopes: ['events'],
    visible_receivers: { all: true, custom: [] },
    ...extra,
  };
}

function sample(users: StoredUser[]): StoredSettings {
  return {
    general: { instance_name: 'Vigil A', synchronize_device_time_interval: 3600 },
    api: { api_port: 443, api_http_port: 80 },
    ignorable_startup_events: [{ event_code: '3A1', group_no: '00', zone_no: '000' }],
    tracker: { timeout_multiplier: 3 },
    users,
  };
}

test('load returns null while nothing was ever saved', async () => {
  const fx = await startStore();
  try {
    assert.is(fx.store.settings.load(), null);
  } finally {
    await fx.cleanup();
  }
});

test('settings round-trip: every section back, in saved key order, users last', async () => {
  const fx = await startStore();
  try {
    const settings = sample([user(2, 'bob'), user(1, 'alice', { scopes: ['settings', 'users'] })]);
    await fx.store.write.settings.save(settings);
    const loaded = fx.store.settings.load();
    assert.equal(loaded, settings);
    assert.equal(Object.keys(loaded ?? {}), ['general', 'api', 'ignorable_startup_events', 'tracker', 'users']);
    assert.equal(
      loaded?.users.map((u) => u.id),
      [2, 1],
    );
  } finally {
    await fx.cleanup();
  }
});

test('saving users [] still counts as saved: load returns the document, not null', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.settings.save({ users: [] });
    assert.equal(fx.store.settings.load(), { users: [] });
  } finally {
    await fx.cleanup();
  }
});

test('settings survive close and reopen', async () => {
  const fx = await startStore();
  try {
    const settings = sample([user(1, 'admin')]);
    await fx.store.write.settings.save(settings);
    await fx.store.stop();
    const again = await fx.reopen();
    assert.equal(again.settings.load(), settings);
  } finally {
    await fx.cleanup();
  }
});

test('a removed section is deleted; an unchanged section keeps its updated_at', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.settings.save(sample([]));
    const first = fx.clock.now();
    fx.clock.advance(60_000);
    const next = sample([]);
    delete next.tracker;
    next.api = { api_port: 8443, api_http_port: 80 };
    await fx.store.write.settings.save(next);
    assert.equal(fx.store.settings.load(), next);
    await fx.store.stop();
    const raw = new BetterSqlite3(fx.path, { readonly: true });
    const rows = raw.prepare('SELECT section, updated_at FROM settings ORDER BY position').all();
    raw.close();
    assert.equal(rows, [
      { section: 'general', updated_at: first },
      { section: 'api', updated_at: first + 60_000 },
      { section: 'ignorable_startup_events', updated_at: first },
    ]);
  } finally {
    await fx.cleanup();
  }
});

test('users are inserted, updated and deleted by id: kept users keep their grants, removed users lose them', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.settings.save(sample([user(1, 'admin'), user(2, 'operator'), user(3, 'viewer')]));
    await fx.store.write.grants.set(1, ['device_control', 'restart_services'], 'admin');
    await fx.store.write.grants.set(3, ['omit_mpass'], 'admin');
    // user 1 changes password and scopes, user 3 is removed, user 4 is new
    const next = sample([
      user(1, 'admin', { password_hash: 'scrypt$new', scopes: ['settings'] }),
      user(2, 'operator'),
      user(4, 'auditor', { visible_receivers: { all: false, custom: [1, 2] } }),
    ]);
    await fx.store.write.settings.save(next);
    assert.equal(fx.store.settings.load()?.users, next.users);
    assert.equal(fx.store.grants.get(1), ['device_control', 'restart_services']);
    assert.equal(fx.store.grants.get(3), []);
    assert.equal(
      fx.store.grants.all().map((g) => g.userId),
      [1],
    );
  } finally {
    await fx.cleanup();
  }
});

test('two users may swap logins in one save', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.settings.save(sample([user(1, 'alice'), user(2, 'bob')]));
    const swapped = sample([user(1, 'bob'), user(2, 'alice')]);
    await fx.store.write.settings.save(swapped);
    assert.equal(
      fx.store.settings.load()?.users.map((u) => [u.id, u.login]),
      [
        [1, 'bob'],
        [2, 'alice'],
      ],
    );
  } finally {
    await fx.cleanup();
  }
});

test('a save that breaks a constraint is CONFLICT and changes nothing (one transaction)', async () => {
  const fx = await startStore();
  try {
    const before = sample([user(1, 'alice')]);
    await fx.store.write.settings.save(before);
    const bad = { ...sample([user(1, 'alice'), user(2, 'alice')]), general: { instance_name: 'changed' } };
    try {
      await fx.store.write.settings.save(bad);
      assert.unreachable('duplicate login must fail');
    } catch (err) {
      assert.ok(isVigilError(err, 'CONFLICT'));
      assert.match((err as Error).message, 'save settings: UNIQUE constraint failed: users.login');
    }
    assert.equal(fx.store.settings.load(), before);
  } finally {
    await fx.cleanup();
  }
});

test('grants: set replaces and de-duplicates, empty set clears, unknown user is NOT_FOUND', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.settings.save(sample([user(1, 'admin')]));
    await fx.store.write.grants.set(1, ['device_control', 'device_control', 'omit_mpass'], 'root');
    assert.equal(fx.store.grants.all(), [
      { userId: 1, scopes: ['device_control', 'omit_mpass'], grantedAt: fx.clock.now(), grantedBy: 'root' },
    ]);
    await fx.store.write.grants.set(1, [], 'root');
    assert.equal(fx.store.grants.get(1), []);
    await fx.store.write.grants.set(1, ['restart_services'], 'root');
    await fx.store.write.grants.clear(1);
    assert.equal(fx.store.grants.all(), []);
    await rejects(
      fx.store.write.grants.set(99, ['device_control'], 'root'),
      (err: unknown) => isVigilError(err, 'NOT_FOUND') && (err as Error).message === 'no user with id 99',
    );
  } finally {
    await fx.cleanup();
  }
});

test.run();
