import { statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { Store } from '../../src/store/store.js';
import { sampleEvent, startStore } from './helpers/store-fixture.js';
import { rejects } from '../helpers/rejects.js';

test('repositories are unavailable before start and after stop; stop is idempotent', async () => {
  const fx = await startStore();
  try {
    const idle = new Store(fx.path, silentLogger);
    assert.throws(
      () => idle.events,
      (err: unknown) => isVigilError(err, 'STORE_UNAVAILABLE'),
    );
    assert.not.ok(await idle.isWritable());
    await idle.stop();
    await fx.store.stop();
    await fx.store.stop();
    assert.throws(
      () => fx.store.meta,
      (err: unknown) => isVigilError(err, 'STORE_UNAVAILABLE'),
    );
    assert.not.ok(await fx.store.isWritable());
  } finally {
    await fx.cleanup();
  }
});

test('start reports the store healthy with its schema version; stop reports it stopped', async () => {
  const fx = await startStore();
  try {
    const health = fx.health.get('store');
    assert.equal(
      [health?.kind, health?.state, health?.detail, health?.metrics],
      ['store', 'ok', null, { schema_version: MIGRATIONS.length }],
    );
    assert.ok(await fx.store.isWritable());
    await fx.store.stop();
    assert.is(fx.health.get('store')?.state, 'stopped');
  } finally {
    await fx.cleanup();
  }
});

test('a store opened read-only is not writable: isWritable is false and health failed with the reason', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.events.append([sampleEvent()]);
    await fx.store.stop();
    const ro = await fx.reopen({ readonly: true });
    assert.is(fx.health.get('store')?.state, 'degraded');
    assert.is(ro.events.maxId(), 1); // reads still work
    assert.not.ok(await ro.isWritable());
    assert.equal(
      [fx.health.get('store')?.state, fx.health.get('store')?.detail],
      ['failed', 'not writable: attempt to write a readonly database'],
    );
    await rejects(
      ro.write.events.append([sampleEvent()]),
      (err: unknown) => isVigilError(err, 'STORE_FAILURE') && /readonly database/.test((err as Error).message),
    );
  } finally {
    await fx.cleanup();
  }
});

test('a store locked by another process is not writable, and is again once the lock goes', async () => {
  const fx = await startStore();
  const other = new BetterSqlite3(fx.path);
  try {
    other.exec('BEGIN IMMEDIATE'); // another writer holds the write lock (a sqlite3 shell, a backup)
    const started = Date.now();
    assert.not.ok(await fx.store.isWritable());
    assert.ok(Date.now() - started < 2000, 'the probe must not wait the full busy timeout');
    assert.equal(
      [fx.health.get('store')?.state, fx.health.get('store')?.detail],
      ['failed', 'not writable: database is locked'],
    );
    other.exec('ROLLBACK');
    assert.ok(await fx.store.isWritable());
    assert.equal([fx.health.get('store')?.state, fx.health.get('store')?.detail], ['ok', null]);
    // the probe left no trace and restored the busy timeout
    assert.is(fx.store.meta.get('write_probe'), null);
  } finally {
    other.close();
    await fx.cleanup();
  }
});

test('output cursors start at 0, only advance, and persist across reopen', async () => {
  const fx = await startStore();
  try {
    assert.is(fx.store.cursors.get(7), 0);
    await fx.store.write.cursors.advance(7, 42);
    await fx.store.write.cursors.advance(7, 40); // a late ack of an older batch
    await fx.store.write.cursors.advance(8, 3);
    await fx.store.stop();
    const again = await fx.reopen();
    assert.is(again.cursors.get(7), 42);
    await again.write.cursors.reset(7, 10);
    await again.write.cursors.remove(8);
    assert.equal(again.cursors.all(), [{ outputId: 7, lastEventId: 10, updatedAt: fx.clock.now() }]);
  } finally {
    await fx.cleanup();
  }
});

test('meta get/set/delete', async () => {
  const fx = await startStore();
  try {
    assert.is(fx.store.meta.get('instance_id'), null);
    await fx.store.write.meta.set('instance_id', 'one');
    await fx.store.write.meta.set('instance_id', 'two');
    assert.is(fx.store.meta.get('instance_id'), 'two');
    await fx.store.write.meta.delete('instance_id');
    assert.is(fx.store.meta.get('instance_id'), null);
  } finally {
    await fx.cleanup();
  }
});

test('sessions left open by a previous run are closed at the next start', async () => {
  const fx = await startStore();
  try {
    const o = await fx.store.write.objects.upsertMain({
      account: '1',
      receiverId: 1,
      receiverKind: 'tcp',
      at: fx.clock.now(),
    });
    await fx.store.write.sessions.open(o.id, fx.clock.now(), null);
    await fx.store.stop();
    fx.clock.advance(30_000);
    const again = await fx.reopen();
    assert.is(again.sessions.recent(o.id, 1)[0]?.disconnectedAt, fx.clock.now());
  } finally {
    await fx.cleanup();
  }
});

test('checkpoint(TRUNCATE) moves the WAL into the database file and empties the WAL', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.events.append(Array.from({ length: 200 }, () => sampleEvent()));
    assert.ok(statSync(`${fx.path}-wal`).size > 0);
    const result = await fx.store.checkpoint();
    assert.is(result.busy, 0);
    assert.is(statSync(`${fx.path}-wal`).size, 0);
  } finally {
    await fx.cleanup();
  }
});

test('a path that cannot be a database fails start with STORE_FAILURE and health failed', async () => {
  const fx = await startStore();
  try {
    const bad = new Store(fx.dir, silentLogger, fx.health); // a directory, not a file
    try {
      await bad.start();
      assert.unreachable('should fail');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match((err as Error).message, `cannot open database ${fx.dir}`);
    }
    assert.is(fx.health.get('store')?.state, 'failed');
    assert.throws(
      () => bad.events,
      (err: unknown) => isVigilError(err, 'STORE_UNAVAILABLE'),
    );
    await bad.stop();
  } finally {
    await fx.cleanup();
  }
});

test.run();
