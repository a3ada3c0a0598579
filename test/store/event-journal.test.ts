import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { openDatabase } from '../../src/store/database.js';
import { EVENT_FLAG_IGNORABLE_STARTUP } from '../../src/store/types.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { sampleEvent, startStore } from './helpers/store-fixture.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

test('append stores a batch in order and returns the ids in input order', async () => {
  const fx = await startStore();
  try {
    const refs = await fx.store.write.events.append([
      sampleEvent({ account: '0001', receivedAt: T0 }),
      sampleEvent({ account: '0002', receivedAt: T0 + 1 }),
      sampleEvent({ account: '0003', receivedAt: T0 + 2 }),
    ]);
    assert.equal(refs, [
      { id: 1, receivedAt: T0 },
      { id: 2, receivedAt: T0 + 1 },
      { id: 3, receivedAt: T0 + 2 },
    ]);
    assert.equal(await fx.store.write.events.append([]), []);
    assert.is(fx.store.events.maxId(), 3);
  } finally {
    await fx.cleanup();
  }
});

test('a stored event comes back field for field, raw bytes exact, code upper-cased', async () => {
  const fx = await startStore();
  try {
    const raw = Buffer.from([0x0a, 0x12, 0x34, 0x22, 0x00, 0xff, 0x0d]);
    const event: NewEvent = sampleEvent({
      deviceTime: T0 - 5000,
      deviceTimeText: '_12:00:00,01-01-2026',
      objectId: 7,
      protocol: 'ADM-CID',
      encrypted: true,
      eventClass: 'restore',
      qualifier: 'R',
      code: '3a1',
      groupNo: '00',
      zoneNo: '000',
      text: '{"mac":"001122"}',
      flags: EVENT_FLAG_IGNORABLE_STARTUP,
      raw: new Uint8Array(raw),
    });
    const [ref] = await fx.store.write.events.append([event]);
    assert.equal(fx.store.events.get(ref!.id), {
      id: 1,
      receivedAt: T0,
      deviceTime: T0 - 5000,
      deviceTimeText: '_12:00:00,01-01-2026',
      receiverId: 1,
      receiverKind: 'tcp',
      transport: 'tcp',
      remoteAddress: '127.0.0.1:40000',
      objectId: 7,
      account: '001234',
      dc09Receiver: 'R1',
      dc09Line: 'L1',
      sequence: '0001',
      protocol: 'ADM-CID',
      encrypted: true,
      eventClass: 'restore',
      qualifier: 'R',
      code: '3A1',
      groupNo: '00',
      zoneNo: '000',
      text: '{"mac":"001122"}',
      flags: 1,
      raw,
    });
    assert.is(fx.store.events.get(2), null);
  } finally {
    await fx.cleanup();
  }
});

test('a batch with one invalid event stores none of them', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.events.append([sampleEvent()]);
    const bad = sampleEvent({ eventClass: 'nonsense' as NewEvent['eventClass'] });
    try {
      await fx.store.write.events.append([sampleEvent({ account: 'A' }), bad, sampleEvent({ account: 'B' })]);
      assert.unreachable('CHECK constraint must fail');
    } catch (err) {
      assert.ok(isVigilError(err, 'CONFLICT'));
      assert.match((err as Error).message, 'append events: CHECK constraint failed');
    }
    const page = fx.store.events.query({ receiverIds: null, limit: 10 });
    assert.equal(
      page.items.map((e) => e.account),
      ['001234'],
    );
  } finally {
    await fx.cleanup();
  }
});

async function seed(append: (events: NewEvent[]) => unknown): Promise<void> {
  // ids 1..12: receivers 1/2 alternate, accounts A/B/C cycle, codes BA/BR, a minute apart
  const events: NewEvent[] = [];
  for (let i = 0; i < 12; i++) {
    events.push(
      sampleEvent({
        receiverId: (i % 2) + 1,
        account: ['A', 'B', 'C'][i % 3]!,
        code: i % 4 === 0 ? 'BR' : 'BA',
        receivedAt: T0 + i * 60_000,
      }),
    );
  }
  await append(events);
}

test('query is newest first and pages by id cursor until nextCursor is null', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    const seen: number[][] = [];
    let before: number | undefined;
    for (let page = 0; page < 10; page++) {
      const result = fx.store.events.query({ receiverIds: null, limit: 5, before });
      seen.push(result.items.map((e) => e.id));
      if (result.nextCursor === null) break;
      before = result.nextCursor;
    }
    assert.equal(seen, [
      [12, 11, 10, 9, 8],
      [7, 6, 5, 4, 3],
      [2, 1],
    ]);
    // exactly a full last page: no extra empty page
    const last = fx.store.events.query({ receiverIds: null, limit: 6, before: 7 });
    assert.equal(
      last.items.map((e) => e.id),
      [6, 5, 4, 3, 2, 1],
    );
    assert.is(last.nextCursor, null);
  } finally {
    await fx.cleanup();
  }
});

test('query filters by visibility, receiver, account, code and half-open time window', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    const ids = (filter: Parameters<typeof fx.store.events.query>[0]): number[] =>
      fx.store.events.query(filter).items.map((e) => e.id);
    assert.equal(ids({ receiverIds: [2], limit: 100 }), [12, 10, 8, 6, 4, 2]);
    assert.equal(ids({ receiverIds: [], limit: 100 }), []);
    assert.equal(ids({ receiverIds: [1, 2], receiverId: 1, limit: 100 }), [11, 9, 7, 5, 3, 1]);
    assert.equal(ids({ receiverIds: [2], receiverId: 1, limit: 100 }), []);
    assert.equal(ids({ receiverIds: null, account: 'B', limit: 100 }), [11, 8, 5, 2]);
    assert.equal(ids({ receiverIds: null, code: 'br', limit: 100 }), [9, 5, 1]);
    // from inclusive, to exclusive: minutes 3..5 are ids 4, 5, 6
    assert.equal(ids({ receiverIds: null, from: T0 + 3 * 60_000, to: T0 + 6 * 60_000, limit: 100 }), [6, 5, 4]);
    assert.equal(ids({ receiverIds: [1], account: 'A', code: 'BR', limit: 100 }), [1]);
  } finally {
    await fx.cleanup();
  }
});

test('events without a receiver are visible only to callers who see all receivers', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.events.append([
      sampleEvent({ receiverId: null, receiverKind: null, protocol: 'INTERNAL', eventClass: 'internal' }),
    ]);
    assert.is(fx.store.events.query({ receiverIds: null, limit: 10 }).items.length, 1);
    assert.is(fx.store.events.query({ receiverIds: [1, 2, 3], limit: 10 }).items.length, 0);
  } finally {
    await fx.cleanup();
  }
});

test('a limit outside 1..1000 is refused', async () => {
  const fx = await startStore();
  try {
    for (const limit of [0, 1001, 1.5]) {
      assert.throws(() => fx.store.events.query({ receiverIds: null, limit }), /limit must be an integer in 1\.\.1000/);
    }
  } finally {
    await fx.cleanup();
  }
});

test('readAfter returns events after the cursor oldest first, in bounded batches', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    assert.equal(
      fx.store.events.readAfter(0, 3).map((e) => e.id),
      [1, 2, 3],
    );
    assert.equal(
      fx.store.events.readAfter(9, 100).map((e) => e.id),
      [10, 11, 12],
    );
    assert.equal(fx.store.events.readAfter(12, 100), []);
    assert.is(fx.store.events.countAfter(9), 3);
  } finally {
    await fx.cleanup();
  }
});

test('retention deletes old events in bounded batches, spares undelivered ones, and ids never go back', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    const cutoff = T0 + 8 * 60_000; // ids 1..8 are older
    // the slowest output has delivered up to id 5 only
    assert.is(await fx.store.write.events.deleteOlderThan(cutoff, { keepAfterId: 5, batchLimit: 3 }), 3);
    assert.is(await fx.store.write.events.deleteOlderThan(cutoff, { keepAfterId: 5, batchLimit: 3 }), 2);
    assert.is(await fx.store.write.events.deleteOlderThan(cutoff, { keepAfterId: 5, batchLimit: 3 }), 0);
    assert.equal(
      fx.store.events.readAfter(0, 100).map((e) => e.id),
      [6, 7, 8, 9, 10, 11, 12],
    );
    assert.is(await fx.store.write.events.deleteOlderThan(T0 + 24 * 3600_000), 7);
    assert.is(fx.store.events.maxId(), 12);
    const [next] = await fx.store.write.events.append([sampleEvent()]);
    assert.is(next!.id, 13);
  } finally {
    await fx.cleanup();
  }
});

test('after retention emptied the journal a restarted store goes on above the last id, in one consecutive batch', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    assert.is(await fx.store.write.events.deleteOlderThan(T0 + 24 * 3600_000), 12);
    await fx.store.stop();
    const again = await fx.reopen();
    assert.equal(again.events.readAfter(0, 100), []);
    assert.is(again.events.maxId(), 12);
    const refs = await again.write.events.append([sampleEvent(), sampleEvent(), sampleEvent()]);
    assert.equal(
      refs.map((r) => r.id),
      [13, 14, 15],
    );
  } finally {
    await fx.cleanup();
  }
});

test('a filter without an index stops at the scan budget: a short page with a cursor at the last row examined', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    // account B is ids 11, 8, 5, 2; a budget of 4 rows examines 12..9 per call
    const q = (before?: number) =>
      fx.store.events.query({ receiverIds: null, account: 'B', limit: 3, ...(before ? { before } : {}) }, 4);
    const pages: Array<[number[], number | null]> = [];
    let before: number | undefined;
    for (let i = 0; i < 10; i++) {
      const page = q(before);
      pages.push([page.items.map((e) => e.id), page.nextCursor]);
      if (page.nextCursor === null) break;
      before = page.nextCursor;
    }
    assert.equal(pages, [
      [[11], 9],
      [[8, 5], 5],
      [[2], null],
    ]);
    // a receiver filter is one more predicate on the same budgeted primary-key walk (no receiver
    // index, migration 2): receiver 1 and account C are ids 9 and 3; a budget of 3 rows per call
    const receiverPages: Array<[number[], number | null]> = [];
    before = undefined;
    for (let i = 0; i < 10; i++) {
      const page = fx.store.events.query(
        { receiverIds: null, receiverId: 1, account: 'C', limit: 10, ...(before ? { before } : {}) },
        3,
      );
      receiverPages.push([page.items.map((e) => e.id), page.nextCursor]);
      if (page.nextCursor === null) break;
      before = page.nextCursor;
    }
    assert.equal(receiverPages, [
      [[], 10],
      [[9], 7],
      [[], 4],
      [[3], null],
    ]);
    // more matches than the limit within the budget: the cursor is the last item, as before
    const full = fx.store.events.query({ receiverIds: null, account: 'A', limit: 1 }, 6);
    assert.equal([full.items.map((e) => e.id), full.nextCursor], [[10], 10]);
    // exactly `limit` matches and the budget spent: the cursor is the last row examined
    const spent = fx.store.events.query({ receiverIds: null, account: 'A', limit: 1 }, 4);
    assert.equal([spent.items.map((e) => e.id), spent.nextCursor], [[10], 9]);
  } finally {
    await fx.cleanup();
  }
});

test('with `after` the walk runs oldest first under the same budget and visibility, cursor = next after', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    // account B is ids 2, 5, 8, 11; a budget of 4 rows examines 1..4, 5..8, 9..12
    const pages: Array<[number[], number | null]> = [];
    let after = 0;
    for (let i = 0; i < 10; i++) {
      const page = fx.store.events.query({ receiverIds: null, account: 'B', limit: 3, after }, 4);
      pages.push([page.items.map((e) => e.id), page.nextCursor]);
      if (page.nextCursor === null) break;
      after = page.nextCursor;
    }
    assert.equal(pages, [
      [[2], 4],
      [[5, 8], 8],
      [[11], null],
    ]);
    // a caller who sees receiver 1 only (odd ids): the store applies it going forward too
    const visible = fx.store.events.query({ receiverIds: [1], limit: 2, after: 5 });
    assert.equal([visible.items.map((e) => e.id), visible.nextCursor], [[7, 9], 9]);
    const tail = fx.store.events.query({ receiverIds: [1], limit: 3, after: 11 });
    assert.equal([tail.items.map((e) => e.id), tail.nextCursor], [[], null]);
    // `after` and a time window together: the larger lower bound wins
    const windowed = fx.store.events.query({
      receiverIds: null,
      limit: 10,
      after: 2,
      from: T0 + 60_000,
      to: T0 + 5 * 60_000,
    });
    assert.equal(
      windowed.items.map((e) => e.id),
      [3, 4, 5],
    );
  } finally {
    await fx.cleanup();
  }
});

test('a time window becomes an id range: only rows inside it are examined, so the budget covers the window', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    // minutes 2..9 are ids 3..9; with a budget of 7 the whole window fits and no cursor is left
    const page = fx.store.events.query(
      { receiverIds: null, account: 'A', from: T0 + 2 * 60_000, to: T0 + 9 * 60_000, limit: 10 },
      7,
    );
    assert.equal([page.items.map((e) => e.id), page.nextCursor], [[7, 4], null]);
    assert.equal(fx.store.events.query({ receiverIds: null, from: T0 + 99 * 60_000, limit: 10 }), {
      items: [],
      nextCursor: null,
    });
    assert.equal(fx.store.events.query({ receiverIds: null, to: T0, limit: 10 }), { items: [], nextCursor: null });
    assert.equal(
      fx.store.events.query({ receiverIds: null, to: T0 + 60_000, before: 5, limit: 10 }).items.map((e) => e.id),
      [1],
    );
  } finally {
    await fx.cleanup();
  }
});

test('the journal has no secondary index and every plan walks the primary key', async () => {
  const fx = await startStore();
  const after: Array<() => void> = [];
  try {
    const db = openDatabase(fx.path, { readonly: true });
    after.push(() => db.close());
    const names = (
      db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' ORDER BY name").all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    assert.equal(names, []);
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    assert.match(
      plan('SELECT id FROM events WHERE id < 5 ORDER BY id DESC LIMIT 9'),
      'SEARCH events USING INTEGER PRIMARY KEY',
    );
    assert.match(
      plan("SELECT id FROM events WHERE code = 'BA' AND id < 5 ORDER BY id DESC LIMIT 9"),
      'SEARCH events USING INTEGER PRIMARY KEY',
    );
    assert.match(
      plan('SELECT id, received_at FROM events WHERE id >= 5 ORDER BY id LIMIT 1'),
      'SEARCH events USING INTEGER PRIMARY KEY',
    );
  } finally {
    for (const f of after) f();
    await fx.cleanup();
  }
});

test('time bounds are found by binary search over ids, across the gaps retention leaves', async () => {
  const fx = await startStore();
  try {
    // 1,000 rows a second apart, then the oldest 300 and a run in the middle deleted
    const rows = Array.from({ length: 1000 }, (_, i) => sampleEvent({ receivedAt: T0 + i * 1000, account: String(i) }));
    await fx.store.write.events.append(rows);
    assert.is(await fx.store.write.events.deleteOlderThan(T0 + 300_000, { batchLimit: 1000 }), 300);
    const db = openDatabase(fx.path);
    db.prepare('DELETE FROM events WHERE id BETWEEN 500 AND 700').run();
    db.close();
    const ids = (from: number, to: number) =>
      fx.store.events
        .query({ receiverIds: null, from: T0 + from * 1000, to: T0 + to * 1000, limit: 1000 })
        .items.map((e) => e.id);
    assert.equal(ids(0, 303), [303, 302, 301]);
    assert.equal(ids(497, 703), [703, 702, 701, 499, 498]);
    assert.equal(ids(550, 650), []);
    assert.equal(ids(998, 5000), [1000, 999]);
    assert.equal(ids(1000, 5000), []);
    // the exact predicate still holds where a clock step broke the order
    await fx.store.write.events.append([sampleEvent({ receivedAt: T0, account: 'stepped back' })]);
    assert.equal(ids(998, 5000), [1000, 999]);
  } finally {
    await fx.cleanup();
  }
});

test('retention with nothing old examines no rows', async () => {
  const fx = await startStore();
  try {
    await seed((e) => fx.store.write.events.append(e));
    assert.is(await fx.store.write.events.deleteOlderThan(T0), 0);
    assert.is(await fx.store.write.events.deleteOlderThan(T0 + 60_000), 1);
    assert.equal(fx.store.events.readAfter(0, 100).map((e) => e.id)[0], 2);
  } finally {
    await fx.cleanup();
  }
});

test.run();
