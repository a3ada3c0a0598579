/**
 * One writer (docs/store.md §One writer): with a writer thread, every write of the Store is a typed
 * command the thread executes on its connection; the Store's own connection and the output
 * worker's only read. Real SQLite file, real worker threads.
 */
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { WriterProxy } from '../../src/writer/writer-proxy.js';
import { OutputWorkerHost } from '../../src/outputs/index.js';
import { waitFor } from '../helpers/net.js';
import { FAST, cidEvent, outputSettings } from '../outputs/helpers/output-fixture.js';
import { Mlr2Peer } from '../outputs/helpers/mlr2-peer.js';
import { sampleEvent, startStore, type StoreFixture } from './helpers/store-fixture.js';
import { rejects } from '../helpers/rejects.js';

async function rig(): Promise<{ fx: StoreFixture; writer: WriterProxy }> {
  // The writer needs the file's path, which the fixture makes: a first inline store creates it.
  const inline = await startStore();
  await inline.store.stop();
  const writer = new WriterProxy({ path: inline.path, logger: inline.logger });
  const store = await inline.reopen({ writer });
  return { fx: { ...inline, store }, writer };
}

test('writes go to the writer thread and come back with their results; the store cannot write without it', async () => {
  const { fx, writer } = await rig();
  try {
    await fx.store.write.meta.set('answer', '42');
    assert.is(fx.store.meta.get('answer'), '42', 'read back on the main connection');
    const device = await fx.store.write.objects.upsertMain({
      uid: 'ABCDEF012345',
      account: '1234',
      receiverId: 1,
      receiverKind: 'tcp',
      at: fx.clock.now(),
    });
    assert.is(fx.store.objects.get(device.id)?.uid, 'ABCDEF012345', 'the record the writer returned is the stored one');
    const [ref] = await fx.store.write.events.append([sampleEvent({ account: '1234' })]);
    assert.is(fx.store.events.get(ref!.id)?.account, '1234');
    assert.is('transaction' in fx.store, false, 'no transaction runs on the store itself: the writer owns them all');

    await writer.close();
    await rejects(
      fx.store.write.meta.set('answer', '43'),
      (err: unknown) => isVigilError(err, 'STORE_UNAVAILABLE'),
      'the main connection does not write by itself',
    );
    assert.is(fx.store.meta.get('answer'), '42');
    await writer.start();
    await fx.store.write.meta.set('answer', '44');
    assert.is(fx.store.meta.get('answer'), '44', 'a new writer thread serves the same store');
  } finally {
    await fx.cleanup();
  }
});

test("the main connection is query-only; the writer's errors come back as the same VigilError", async () => {
  const { fx } = await rig();
  try {
    // A write sneaked past the routing fails: the store's own connection refuses it.
    const db = (fx.store as unknown as { db: BetterSqlite3.Database }).db;
    assert.throws(() => db.prepare("INSERT INTO meta (key, value) VALUES ('x', 'y')").run(), /readonly|read-only/i);
    let code = '';
    try {
      await fx.store.write.grants.set(123456, ['device_control'], 'test');
    } catch (err) {
      code = isVigilError(err) ? err.code : 'not a VigilError';
    }
    assert.is(code, 'NOT_FOUND', "the repository's own error code crosses the thread");
  } finally {
    await fx.cleanup();
  }
});

test("the caller's clock stamps the writer's rows", async () => {
  const { fx } = await rig();
  try {
    fx.clock.set(Date.UTC(2030, 4, 6, 7, 8, 9));
    await fx.store.write.overrides.set({
      matchKind: 'uid',
      matchValue: 'abc123',
      relatedOid: null,
      overrideOid: '9999',
    });
    assert.is(fx.store.overrides.list()[0]?.updatedAt, Date.UTC(2030, 4, 6, 7, 8, 9));
  } finally {
    await fx.cleanup();
  }
});

test('isWritable probes through the writer: a write lock held elsewhere makes it false, releasing it true again', async () => {
  const { fx } = await rig();
  const other = new BetterSqlite3(fx.path);
  try {
    assert.ok(await fx.store.isWritable());
    other.exec('BEGIN IMMEDIATE');
    assert.not.ok(await fx.store.isWritable());
    assert.match(fx.health.get('store')?.detail ?? '', /not writable: database is locked/);
    other.exec('ROLLBACK');
    assert.ok(await fx.store.isWritable());
    assert.is(fx.health.get('store')?.state, 'ok');
    assert.equal(Object.keys(await fx.store.checkpoint('PASSIVE')).sort(), ['busy', 'checkpointed', 'log']);
  } finally {
    other.close();
    await fx.cleanup();
  }
});

test("the output worker's cursor writes go to the writer, also after the writer thread was replaced", async () => {
  const { fx, writer } = await rig();
  const peer = new Mlr2Peer();
  await peer.listen();
  const listeners = new Set<() => void>();
  const host = new OutputWorkerHost({
    dbPath: fx.path,
    writer,
    outputs: [outputSettings({ id: 5, identificator: `127.0.0.1:${peer.port}` })],
    health: fx.health,
    logger: fx.logger,
    onEventStored: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    timings: FAST,
  });
  try {
    await host.start();
    await waitFor(() => fx.health.get('out:5')?.state === 'ok', 3000);
    const first = await fx.store.write.events.append([sampleEvent(cidEvent({ zoneNo: '001' }))]);
    for (const listener of listeners) listener();
    await peer.waitForEvents(1);
    await waitFor(() => fx.store.cursors.get(5) === first[0]!.id, 3000);

    await writer.close();
    await writer.start();
    const second = await fx.store.write.events.append([sampleEvent(cidEvent({ zoneNo: '002' }))]);
    for (const listener of listeners) listener();
    await peer.waitForEvents(2);
    await waitFor(() => fx.store.cursors.get(5) === second[0]!.id, 3000);
  } finally {
    await host.stop();
    await peer.close();
    await fx.cleanup();
  }
});

test('token epochs: raised by the writer in the settings save, mirrored on the main thread, reloaded on open', async () => {
  const { fx } = await rig();
  try {
    const user = (id: number, hash: string) => ({
      id,
      login: `u${id}`,
      password_hash: hash,
      token_time: 60,
      scopes: ['events'],
      visible_receivers: { all: true, custom: [] },
    });
    await fx.store.write.settings.save({ users: [user(1, 'h1'), user(2, 'h2')] });
    assert.equal([fx.store.tokenEpochs.get(1), fx.store.tokenEpochs.get(2)], [0, 0], 'new ids start at 0');
    await fx.store.write.settings.save({ users: [user(1, 'h1-new'), user(2, 'h2')] });
    assert.equal(
      [fx.store.tokenEpochs.get(1), fx.store.tokenEpochs.get(2)],
      [1, 0],
      'a password change raises only that user',
    );
    await fx.store.write.settings.save({ users: [user(1, 'h1-new')] });
    await fx.store.write.settings.save({ users: [user(1, 'h1-new'), user(2, 'h2')] });
    assert.is(fx.store.tokenEpochs.get(2), 1, 'deleted and re-created: higher than before');
    const again = await fx.reopen({ readonly: true });
    assert.equal([again.tokenEpochs.get(1), again.tokenEpochs.get(2)], [1, 1]);
  } finally {
    await fx.cleanup();
  }
});

test.run();
