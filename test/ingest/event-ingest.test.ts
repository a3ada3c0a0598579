import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedBus } from '../../src/core/bus.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { REVALIDATE_MS } from '../../src/writer/object-directory.js';
import type { IngestEvents, LinkedDevice } from '../../src/ingest/types.js';
import { borrowedWriter } from '../../src/writer/wire.js';
import { storeWithWriter } from '../../src/writer/store-with-writer.js';
import { tempDir } from '../helpers/temp-dir.js';
import { T0, frame, hello, sessionLog } from './helpers/items.js';

const dir = tempDir('vigil-ingest-');
const path = join(dir.path, 'vigil.db');
// The gateway's topology: the store and its writer thread, which commits the ingest's batches.
const { store, writer } = storeWithWriter(path, silentLogger);
const health = new HealthRegistry();
const bus = new TypedBus<IngestEvents>(silentLogger);
const ingest = new EventIngest({
  writer: borrowedWriter(writer),
  logger: silentLogger,
  bus,
  health,
  sessionLogCount: () => 2,
});

/**
 * Makes every journal insert fail inside the writer's transaction (a real SQLite error, raised
 * by a trigger made on a connection of the test's own), or stops doing so.
 */
function failAppends(on: boolean): void {
  const db = new BetterSqlite3(path);
  try {
    db.exec(
      on
        ? "CREATE TRIGGER test_fail_append BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END"
        : 'DROP TRIGGER test_fail_append',
    );
  } finally {
    db.close();
  }
}

test.before(async () => {
  await store.start();
});

test.after(async () => {
  await ingest.close();
  await store.stop();
  dir.remove();
});

test('submits from 200 devices in one event-loop turn commit in ONE transaction, each resolving with its ids', async () => {
  const flushes = ingest.stats.flushes;
  const before = store.events.maxId();
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) => ingest.submit([frame(`A${String(i).padStart(3, '0')}`)])),
  );
  assert.is(ingest.stats.flushes, flushes + 1);
  assert.equal(
    results.map((r) => r[0]!.eventIds),
    Array.from({ length: 200 }, (_, i) => [before + 1 + i]),
  );
  assert.is(store.events.get(before + 200)!.account, 'A199');
  assert.is(store.events.get(before + 200)!.objectId, results[199]![0]!.objectId);
});

test('the first message of an unknown account creates its object in the same commit; later ones reuse it', async () => {
  const registered: number[] = [];
  const off = bus.on('object-registered', (e) => registered.push(e.object.id));
  const [first] = await ingest.submit([frame('B001')]);
  const [second] = await ingest.submit([frame('B001', { receivedAt: T0 + 5000, remoteAddress: '192.0.2.7:5009' })]);
  off();
  assert.equal(registered, [first!.objectId]);
  assert.is(second!.objectId, first!.objectId);
  const object = store.objects.get(first!.objectId!)!;
  assert.equal(
    [object.account, object.receiverId, object.lastSeen, object.remoteAddress],
    ['B001', 1, T0 + 5000, '192.0.2.7:5009'],
  );
});

test('a NULL link test sets last_ping without a journal row; without an account it only counts', async () => {
  const maxId = store.events.maxId();
  const linkTests = ingest.stats.linkTests;
  const [withAccount] = await ingest.submit([frame(null, { account: 'C001', linkTest: true, receivedAt: T0 + 100 })]);
  const [bare] = await ingest.submit([frame(null, { linkTest: true })]);
  assert.is(store.events.maxId(), maxId);
  assert.is(store.objects.get(withAccount!.objectId!)!.lastPing, T0 + 100);
  assert.equal(bare, { objectId: null, eventIds: [] });
  assert.is(ingest.stats.linkTests, linkTests + 2);
});

test('bus: event-stored in journal order with ids, object-seen once per object per transaction', async () => {
  const stored: Array<[number, string]> = [];
  const seen: Array<[string, number, boolean]> = [];
  const offs = [
    bus.on('event-stored', (e) => stored.push([e.id, e.event.account])),
    bus.on('object-seen', (e) => seen.push([store.objects.get(e.objectId)!.account, e.at, e.ping])),
  ];
  const a = ingest.submit([frame('D001'), frame('D002')]);
  const b = ingest.submit([
    frame('D001', { receivedAt: T0 + 1 }),
    frame(null, { account: 'D002', linkTest: true, receivedAt: T0 + 2 }),
  ]);
  const [ra, rb] = await Promise.all([a, b]);
  for (const off of offs) off();
  assert.equal(stored, [
    [ra[0]!.eventIds[0]!, 'D001'],
    [ra[1]!.eventIds[0]!, 'D002'],
    [rb[0]!.eventIds[0]!, 'D001'],
  ]);
  assert.equal(seen, [
    ['D001', T0 + 1, false],
    ['D002', T0 + 2, true],
  ]);
});

test('a failed transaction rejects every waiting submit, rolls back objects and reports the store failed; success reports ok', async () => {
  failAppends(true);
  const maxId = store.events.maxId();
  const outcomes = await Promise.allSettled([ingest.submit([frame('E001')]), ingest.submit([frame('E002')])]);
  assert.equal(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  assert.equal(store.objects.findByAccount('E001', 1), [], 'the object created in the failed transaction is gone');
  assert.is(store.events.maxId(), maxId);
  assert.is(health.get('store')!.state, 'failed');
  assert.match(health.get('store')!.detail!, /journal write failed: append events: disk I\/O error/);
  failAppends(false);
  const [ok] = await ingest.submit([frame('E001')]);
  assert.ok(store.objects.get(ok!.objectId!), 'the cache was cleared: the object is created again');
  assert.is(health.get('store')!.state, 'ok');
});

test('an enrolling HELLO registers its UID; an earlier UID-less object of the same account is adopted, not registered twice', async () => {
  const [panel] = await ingest.submit([frame('F001')]);
  const registered: number[] = [];
  const off = bus.on('object-registered', (e) => registered.push(e.object.id));
  const [adopted] = await ingest.submit([hello('00F1F1F1F1', 'F001', { hwId: 'HW-9', firmware: '1.2', adopt: true })]);
  const [fresh] = await ingest.submit([hello('00F2F2F2F2', 'F002', { adopt: true })]);
  off();
  assert.is(adopted!.objectId, panel!.objectId);
  assert.equal([adopted!.object!.uid, adopted!.object!.hwId, adopted!.object!.firmware], ['00F1F1F1F1', 'HW-9', '1.2']);
  assert.equal(registered, [fresh!.objectId]);
});

test("a HELLO proven with a key on record never takes a plain panel's object: it gets one of its own", async () => {
  const [panel] = await ingest.submit([frame('F101')]);
  const [own] = await ingest.submit([hello('00F3F3F3F3', 'F101', { hwId: 'EVIL' })]);
  assert.is.not(own!.objectId, panel!.objectId);
  const plain = store.objects.get(panel!.objectId!)!;
  assert.equal([plain.uid, plain.hwId], [null, null], "the panel's object is as it was");
});

test("another account on a linked device's connection is a related object of that device", async () => {
  const [h] = await ingest.submit([hello('00AAAA0001', 'G001')]);
  const device: LinkedDevice = { objectId: h!.objectId!, uid: '00AAAA0001', account: 'G001' };
  const [own, other] = await ingest.submit([frame('g001', { device }), frame('G777', { device })]);
  assert.is(own!.objectId, device.objectId, 'account compared without case');
  const related = store.objects.get(other!.objectId!)!;
  assert.equal([related.mainObjectId, related.account, related.receiverId], [device.objectId, 'G777', 1]);
  assert.is(store.events.get(other!.eventIds[0]!)!.objectId, related.id);
});

test("a HELLO without account: the first message's account becomes the device's", async () => {
  const [h] = await ingest.submit([hello('00BBBB0001')]);
  assert.is(h!.object!.account, '');
  const device: LinkedDevice = { objectId: h!.objectId!, uid: '00BBBB0001', account: '' };
  const [r] = await ingest.submit([frame('H001', { device })]);
  assert.is(r!.objectId, device.objectId);
  assert.is(device.account, 'H001');
  assert.is(store.objects.get(device.objectId)!.account, 'H001');
});

test('a session row opens with the first identified item, is trimmed to the log count and closes after its last frames', async () => {
  const logs = [sessionLog(), sessionLog(), sessionLog()];
  for (const log of logs) {
    await ingest.submit([frame(null, { session: log }), frame('J001', { session: log })]);
    log.bytesIn = 123;
    ingest.closeSession(log, T0 + 9000);
  }
  await ingest.submit([frame('J002')]);
  const objectId = logs[0]!.objectId!;
  const rows = store.sessions.recent(objectId, 10);
  assert.is(rows.length, 2, 'device_session_log_count 2');
  assert.equal(
    rows.map((r) => [r.id, r.events, r.bytesIn, r.disconnectedAt, r.connectedAt]),
    [
      [logs[2]!.id, 1, 123, T0 + 9000, T0 - 1000],
      [logs[1]!.id, 1, 123, T0 + 9000, T0 - 1000],
    ],
  );
});

test('an identity not confirmed for REVALIDATE_MS is read back: an object deleted meanwhile is created again', async () => {
  const [first] = await ingest.submit([frame('K001')]);
  await store.write.objects.setConnectionState(first!.objectId!, 'lost');
  assert.is(await store.write.objects.deleteLostOlderThan(T0 + 1), 1);
  const [soon] = await ingest.submit([frame('K001', { receivedAt: T0 + 1000 })]);
  assert.is(soon!.objectId, first!.objectId, 'within the window the cache is trusted');
  const [later] = await ingest.submit([frame('K001', { receivedAt: T0 + REVALIDATE_MS + 1 })]);
  assert.is.not(later!.objectId, first!.objectId);
  assert.ok(store.objects.get(later!.objectId!));
});

test('a queue of maxBatchItems leaves at once, without waiting for the next turn', async () => {
  const small = new EventIngest({ writer: borrowedWriter(writer), logger: silentLogger, maxBatchItems: 3 });
  const pending = small.submit([frame('L001'), frame('L002'), frame('L003')]);
  assert.is(small.queued, 0);
  assert.is((await pending).length, 3);
  assert.is(small.stats.flushes, 1);
});

test('submitTo: each sink hears its own results once; a sink that throws is logged and the others of the batch still hear', async () => {
  const errors: string[] = [];
  const logger = { ...silentLogger, error: (message: string) => void errors.push(message), child: () => logger };
  const own = new EventIngest({ writer: borrowedWriter(writer), logger });
  const heard: Array<[string, number]> = [];
  await new Promise<void>((resolve) => {
    own.submitTo([frame('S001')], {
      committed: () => {
        throw new Error('receiver bug');
      },
      failed: () => heard.push(['failed', 0]),
    });
    own.submitTo([frame('S002'), frame('S003')], {
      committed: (results) => {
        heard.push(['committed', results.length]);
        resolve();
      },
      failed: () => heard.push(['failed', 0]),
    });
  });
  assert.equal(heard, [['committed', 2]]);
  assert.equal(errors, ['a receiver failed to take its committed frames']);
  assert.is(own.stats.flushes, 1, 'both submits went in one transaction');
});

test.run();
