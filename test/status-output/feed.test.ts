import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedBus } from '../../src/core/bus.js';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import type { IngestEvents } from '../../src/ingest/types.js';
import type { RaiseInternalEvent } from '../../src/internal-events/recorder.js';
import { feedFromIngest, snapshotSource, tapTransitions, type StatusSink } from '../../src/status-output/feed.js';
import type { StatusChange } from '../../src/status-output/frame.js';
import type { ObjectRecord } from '../../src/store/types.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';

const AT = Date.UTC(2026, 0, 1);

function record(id: number, overrides: Partial<ObjectRecord> = {}): ObjectRecord {
  return {
    id,
    account: `A${id}`,
    uid: null,
    hwId: null,
    firmware: null,
    mainObjectId: null,
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: null,
    firstSeen: AT,
    lastSeen: AT,
    lastPing: null,
    connectionState: 'online',
    supervisionState: null,
    linkPeriodS: null,
    sms: false,
    restoreCount: 0,
    ...overrides,
  };
}

function sink(listening = true): StatusSink & { got: StatusChange[] } {
  const got: StatusChange[] = [];
  return { got, listening, publish: (c) => got.push(c) };
}

const objects = { get: (id: number) => (id === 404 ? null : record(id, { uid: 'ABCD' })) };

test('ingest bus: a new object is online; a NULL link test and a link-test event are link_test; other events are not', () => {
  const bus = new TypedBus<IngestEvents>(silentLogger);
  const s = sink();
  const off = feedFromIngest(bus, s, objects);
  bus.emit('object-registered', { object: record(1, { lastSeen: AT + 1 }) });
  bus.emit('object-seen', { objectId: 2, at: AT + 2, ping: true, remoteAddress: null });
  bus.emit('object-seen', { objectId: 2, at: AT + 3, ping: false, remoteAddress: null });
  bus.emit('event-stored', { id: 1, event: sampleEvent({ eventClass: 'link_test', objectId: 3, receivedAt: AT + 4 }) });
  bus.emit('event-stored', { id: 2, event: sampleEvent({ eventClass: 'alarm', objectId: 3 }) });
  bus.emit('object-seen', { objectId: 404, at: AT + 5, ping: true, remoteAddress: null });
  assert.equal(
    s.got.map((c) => [c.kind, c.object.id, c.at, c.object.connectionState]),
    [
      ['online', 1, AT + 1, 'online'],
      ['link_test', 2, AT + 2, 'online'],
      ['link_test', 3, AT + 4, 'online'],
    ],
  );
  assert.is(s.got[1]?.object.uid, 'ABCD');
  off();
  bus.emit('object-registered', { object: record(9) });
  assert.is(s.got.length, 3);
});

test('ingest bus: nothing is looked up or published while no client listens', () => {
  const bus = new TypedBus<IngestEvents>(silentLogger);
  const s = sink(false);
  let lookups = 0;
  feedFromIngest(bus, s, { get: (id) => (lookups++, record(id)) });
  bus.emit('object-seen', { objectId: 2, at: AT, ping: true, remoteAddress: null });
  bus.emit('object-registered', { object: record(1) });
  assert.is(lookups, 0);
  assert.equal(s.got, []);
});

test('tapped raise: object_lost and object_restored become lost and restored, and still reach the recorder', async () => {
  const raised: string[] = [];
  const raise: RaiseInternalEvent = async (type) => (raised.push(type), 1);
  const s = sink();
  const clock = new ManualClock(AT + 50);
  const tapped = tapTransitions(raise, () => s, objects, clock);
  const subject = { objectId: 5, account: 'A5', receiverId: 1, receiverKind: 'tcp' as const };
  await tapped('object_lost', { subject });
  await tapped('object_restored', { subject, at: AT + 60 });
  await tapped('store_trouble', {});
  assert.equal(raised, ['object_lost', 'object_restored', 'store_trouble']);
  assert.equal(
    s.got.map((c) => [c.kind, c.at, c.object.connectionState]),
    [
      ['lost', AT + 50, 'lost'],
      ['restored', AT + 60, 'online'],
    ],
  );
  const none = tapTransitions(raise, () => null, objects, clock);
  await none('object_lost', { subject });
  assert.is(s.got.length, 2);
});

test('snapshot: the objects counted, then read page by page with their stored connection state', () => {
  const records = [record(1), record(2, { connectionState: 'lost', mainObjectId: 1 }), record(3)];
  const source = snapshotSource({
    count: () => records.length,
    pageAfter: (after, limit) => records.filter((r) => r.id > after).slice(0, limit),
  });
  assert.is(source.count(), 3);
  assert.equal(
    source.page(0, 2).map((o) => [o.id, o.connectionState, o.mainObjectId]),
    [
      [1, 'online', null],
      [2, 'lost', 1],
    ],
  );
  assert.equal(
    source.page(2, 2).map((o) => o.id),
    [3],
  );
});

test.run();
