/**
 * The durable outbox on a real SQLite journal: where a new output starts, in-order heads across read batches, the
 * cursor passing filtered events, batched cursor writes, and the account an event goes out under.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAccountResolver, createEventFilter, Outbox } from '../../src/outputs/index.js';
import type { StoredEvent } from '../../src/core/event-row.js';
import { sampleEvent, startStore, type StoreFixture } from '../store/helpers/store-fixture.js';

let fx: StoreFixture;

test.before.each(async () => {
  fx = await startStore();
});

test.after.each(async () => {
  await fx.cleanup();
});

function outbox(
  options: {
    filters?: { receivers: number[]; event_classes: string[] };
    batchSize?: number;
    flushEvery?: number;
    oid?: number;
  } = {},
): Outbox {
  return new Outbox({
    outputId: 7,
    journal: fx.store.events,
    cursors: fx.store.cursors,
    cursorWrites: fx.store.write.cursors,
    filter: createEventFilter(options.filters ?? { receivers: [], event_classes: [] }),
    resolveAccount: createAccountResolver(fx.store, options.oid ?? 0xabc),
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.flushEvery ? { flushEvery: options.flushEvery } : {}),
  });
}

async function append(count: number, extra: (i: number) => Record<string, unknown> = () => ({})): Promise<number[]> {
  const refs = await fx.store.write.events.append(
    Array.from({ length: count }, (_, i) => sampleEvent({ zoneNo: String(i + 1), ...extra(i) })),
  );
  return refs.map((r) => r.id);
}

function drain(box: Outbox): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let head = box.head(), n = 0; head && n < 10_000; head = box.head(), n++) {
    out.push(head.event);
    box.done(head.event.id);
  }
  return out;
}

test('a new output starts at the journal head and stores that position at once', async () => {
  const before = await append(3);
  const box = outbox();
  assert.is(await box.open(), before[2]);
  assert.is(fx.store.cursors.get(7), before[2]);
  assert.is(box.head(), null);
  const after = await append(2);
  assert.equal(
    drain(box).map((e) => e.id),
    after,
  );
});

test('peek() takes the head and the taken events behind it in the read batch, and moves nothing', async () => {
  await fx.store.write.cursors.reset(7, 0);
  const classes = ['restore', 'alarm', 'restore', 'alarm', 'alarm', 'alarm', 'alarm'];
  const ids = await append(7, (i) => ({ eventClass: classes[i] }));
  const box = outbox({ filters: { receivers: [], event_classes: ['alarm'] }, batchSize: 4 });
  await box.open();
  // The restore before the head is passed (everything before the head is done); the one between is not.
  // The batch ends with the rows already read (4: ids[0..3]).
  assert.equal(
    box.peek(3).map((e) => e.event.id),
    [ids[1], ids[3]],
  );
  assert.is(box.cursor, ids[0]);
  assert.equal(
    box.peek(3).map((e) => e.event.id),
    [ids[1], ids[3]],
    'the same batch until done()',
  );
  box.head();
  box.done(ids[1]!);
  assert.is(box.cursor, ids[1], 'the restore between is still ahead of the cursor');
  box.head();
  box.done(ids[3]!);
  assert.is(box.cursor, ids[3]);
  assert.equal(
    box.peek(2).map((e) => e.event.id),
    [ids[4], ids[5]],
  );
  assert.equal(
    box.peek(10).map((e) => e.event.id),
    [ids[4], ids[5], ids[6]],
  );
});

test('an output with a stored cursor resumes after it, in id order, across read batches', async () => {
  const ids = await append(7);
  await fx.store.write.cursors.reset(7, ids[1]!);
  const box = outbox({ batchSize: 2 });
  assert.is(await box.open(), ids[1]);
  assert.equal(
    drain(box).map((e) => e.id),
    ids.slice(2),
  );
  assert.is(box.cursor, ids[6]);
});

test('the head stays the same until done(); done() of another id changes nothing', async () => {
  const ids = await append(2);
  await fx.store.write.cursors.reset(7, 0);
  const box = outbox();
  await box.open();
  assert.is(box.head()!.event.id, ids[0]);
  assert.is(box.head()!.event.id, ids[0]);
  box.done(ids[1]!);
  assert.is(box.head()!.event.id, ids[0]);
  assert.is(box.cursor, 0);
  box.done(ids[0]!);
  assert.is(box.head()!.event.id, ids[1]);
  assert.is(box.cursor, ids[0]);
});

test('filtered and ignorable events are passed by the cursor and reported by skipped()', async () => {
  const ids = await append(
    5,
    (i) =>
      [
        { receiverId: 1 },
        { receiverId: 2 },
        { receiverId: 2, flags: 1 },
        { receiverId: 2, eventClass: 'restore' },
        { receiverId: null, receiverKind: null, eventClass: 'internal' },
      ][i]!,
  );
  await fx.store.write.cursors.reset(7, 0);
  const box = outbox({ filters: { receivers: [2], event_classes: ['alarm', 'internal'] } });
  await box.open();
  assert.equal(
    drain(box).map((e) => e.id),
    [ids[1], ids[4]],
  );
  assert.equal(box.skipped(), [
    { id: ids[0], reason: 'receiver not in filters' },
    { id: ids[2], reason: 'ignorable startup event' },
    { id: ids[3], reason: 'event class not in filters' },
  ]);
  assert.is(box.cursor, ids[4]);
});

test('the cursor is written every flushEvery events and on flush(), never per event', async () => {
  const ids = await append(10);
  await fx.store.write.cursors.reset(7, 0);
  const box = outbox({ flushEvery: 4 });
  await box.open();
  const persisted: number[] = [];
  for (let i = 0; i < 10; i++) {
    box.done(box.head()!.event.id);
    await box.idle();
    persisted.push(fx.store.cursors.get(7));
  }
  assert.equal(persisted, [0, 0, 0, ids[3], ids[3], ids[3], ids[3], ids[7], ids[7], ids[7]]);
  await box.flush();
  assert.is(fx.store.cursors.get(7), ids[9]);
  assert.is(box.backlog(), 0);
});

test('a reopened outbox (a restart) resends only what was not persisted: at least once, in order', async () => {
  const ids = await append(6);
  await fx.store.write.cursors.reset(7, 0);
  const first = outbox({ flushEvery: 1000 });
  await first.open();
  for (let i = 0; i < 4; i++) first.done(first.head()!.event.id);
  await first.flush();
  first.done(first.head()!.event.id); // ACKed but not yet persisted when the "crash" happens
  const second = outbox();
  await second.open();
  assert.equal(
    drain(second).map((e) => e.id),
    ids.slice(4),
  );
});

test('accounts: override of the device (UID first), of a related object, by account without an object, gateway oid', async () => {
  const at = fx.clock.now();
  const withUid = await fx.store.write.objects.upsertMain({
    account: '1111',
    uid: 'C0FFEE',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  const related = await fx.store.write.objects.upsertRelated(withUid.id, '2222', { at });
  const noOverride = await fx.store.write.objects.upsertMain({
    account: '3333',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '1111', relatedOid: null, overrideOid: 'AAAA' });
  await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'c0ffee', relatedOid: null, overrideOid: 'BBBB' });
  await fx.store.write.overrides.set({
    matchKind: 'uid',
    matchValue: 'C0FFEE',
    relatedOid: '2222',
    overrideOid: 'CCCC',
  });
  await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '4444', relatedOid: null, overrideOid: 'DDDD' });
  await fx.store.write.cursors.reset(7, 0);
  await append(
    5,
    (i) =>
      [
        { objectId: withUid.id, account: '1111' },
        { objectId: related.id, account: '2222' },
        { objectId: noOverride.id, account: '3333' },
        { objectId: null, account: '4444' },
        { objectId: null, receiverId: null, receiverKind: null, account: '0000' },
      ][i]!,
  );
  const box = outbox({ oid: 0x2a });
  await box.open();
  const accounts: string[] = [];
  for (let head = box.head(); head; head = box.head()) {
    accounts.push(head.account);
    box.done(head.event.id);
  }
  assert.equal(accounts, ['BBBB', 'CCCC', '3333', 'DDDD', '002A']);
});

test.run();
