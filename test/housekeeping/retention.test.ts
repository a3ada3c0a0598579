import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  DAY_MS,
  EVENT_BATCH_LIMIT,
  retentionPolicy,
  runRetention,
  undeliveredFloor,
  type RetentionPolicy,
} from '../../src/housekeeping/retention.js';
import { defaultSettings, type OutputSettings } from '../../src/settings/schema.js';
import type { Store } from '../../src/store/store.js';
import { sampleEvent, startStore } from '../store/helpers/store-fixture.js';

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);

function policy(overrides: Partial<RetentionPolicy> = {}): RetentionPolicy {
  return {
    removeEventsAgeDays: 10,
    removeLostObjectsAgeDays: 30,
    sessionLogCount: 3,
    outputIds: [],
    extraFloors: [],
    ...overrides,
  };
}

/** Appends events received at the given times; returns their ids. */
async function append(store: Store, times: number[]): Promise<number[]> {
  return (await store.write.events.append(times.map((t) => sampleEvent({ receivedAt: t })))).map((r) => r.id);
}

function remainingIds(store: Store): number[] {
  return store.events.readAfter(0, 10_000).map((e) => e.id);
}

function output(id: number, enabled: boolean): OutputSettings {
  return {
    id,
    name: `out${id}`,
    type: 1,
    protocol: 'MLR2',
    identificator: 'x',
    oid: 0,
    receiver_number: 0,
    line_number: 0,
    filters: { receivers: [], event_classes: [] },
    enabled,
  };
}

test('events older than remove_events_age are deleted; one received exactly at the cutoff is kept', async () => {
  const f = await startStore();
  try {
    const cutoff = NOW - 10 * DAY_MS;
    const ids = await append(f.store, [cutoff - 2 * DAY_MS, cutoff - 1, cutoff, cutoff + 1, NOW]);
    const report = await runRetention(f.store, policy(), NOW);
    assert.is(report.eventsDeleted, 2);
    assert.is(report.keepAfterId, null);
    assert.equal(remainingIds(f.store), ids.slice(2));
  } finally {
    await f.cleanup();
  }
});

test('events after the lowest cursor of the enabled outputs are never deleted, however old', async () => {
  const f = await startStore();
  try {
    const old = NOW - 100 * DAY_MS;
    const ids = await append(
      f.store,
      Array.from({ length: 10 }, () => old),
    );
    await f.store.write.cursors.reset(1, ids[4]!);
    await f.store.write.cursors.reset(2, ids[7]!);
    await f.store.write.cursors.reset(3, 0); // a disabled output's cursor does not count (not in outputIds)
    const report = await runRetention(f.store, policy({ outputIds: [1, 2] }), NOW);
    assert.is(report.keepAfterId, ids[4]);
    assert.is(report.eventsDeleted, 5);
    assert.equal(remainingIds(f.store), ids.slice(5));
  } finally {
    await f.cleanup();
  }
});

test('an enabled output without a stored cursor, or a MySQL sync floor, holds events back', async () => {
  const f = await startStore();
  try {
    const ids = await append(
      f.store,
      Array.from({ length: 6 }, () => NOW - 100 * DAY_MS),
    );
    assert.is((await runRetention(f.store, policy({ outputIds: [9] }), NOW)).eventsDeleted, 0);
    const report = await runRetention(f.store, policy({ extraFloors: [ids[1]!, null] }), NOW);
    assert.is(report.eventsDeleted, 2);
    assert.equal(remainingIds(f.store), ids.slice(2));
  } finally {
    await f.cleanup();
  }
});

test('the floor is the minimum of output cursors and extra floors; no floors means none', () => {
  const cursors = [
    { outputId: 1, lastEventId: 40, updatedAt: null },
    { outputId: 2, lastEventId: 10, updatedAt: null },
  ];
  assert.is(undeliveredFloor([1], cursors, [25]), 25);
  assert.is(undeliveredFloor([1, 2], cursors, [null]), 10);
  assert.is(undeliveredFloor([], cursors, [null]), null);
  assert.is(undeliveredFloor([3], cursors, []), 0);
});

test('a large backlog is deleted in bounded batches with event-loop turns in between', async () => {
  const f = await startStore();
  try {
    const total = EVENT_BATCH_LIMIT * 2 + 123;
    for (let i = 0; i < total; i += 5000)
      await append(
        f.store,
        Array.from({ length: Math.min(5000, total - i) }, () => NOW - 50 * DAY_MS),
      );
    const keep = await append(f.store, [NOW]);
    let immediates = 0;
    const count = (): void => {
      immediates++;
      if (immediates < 1000) setImmediate(count);
    };
    setImmediate(count);
    const report = await runRetention(f.store, policy(), NOW);
    assert.is(report.eventsDeleted, total);
    assert.equal(remainingIds(f.store), keep);
    assert.ok(immediates >= 2, `other work ran only ${immediates} times during the pass`);
  } finally {
    await f.cleanup();
  }
});

test('lost objects not heard from for remove_lost_objects_age are deleted with their sessions; others stay', async () => {
  const f = await startStore();
  try {
    const old = NOW - 31 * DAY_MS;
    const lostOld = await f.store.write.objects.upsertMain({
      account: '1',
      receiverId: 1,
      receiverKind: 'tcp',
      at: old,
    });
    const lostRecent = await f.store.write.objects.upsertMain({
      account: '2',
      receiverId: 1,
      receiverKind: 'tcp',
      at: NOW - 29 * DAY_MS,
    });
    const onlineOld = await f.store.write.objects.upsertMain({
      account: '3',
      receiverId: 1,
      receiverKind: 'tcp',
      at: old,
    });
    // Heard more than once: objects heard once have a rule of their own (below).
    await f.store.write.objects.markSeen(lostRecent.id, NOW - 29 * DAY_MS + 1, null);
    await f.store.write.objects.markSeen(onlineOld.id, old + 1, null);
    await f.store.write.objects.setConnectionState(lostOld.id, 'lost');
    await f.store.write.objects.setConnectionState(lostRecent.id, 'lost');
    const related = await f.store.write.objects.upsertRelated(lostOld.id, '77', { at: old });
    await f.store.write.sessions.open(lostOld.id, old, null);
    const report = await runRetention(f.store, policy(), NOW);
    assert.is(report.objectsDeleted, 1); // the lost device; its related object goes by cascade, uncounted (SQLite changes())
    assert.is(f.store.objects.get(lostOld.id), null);
    assert.is(f.store.objects.get(related.id), null);
    assert.equal(f.store.sessions.recent(lostOld.id, 10), []);
    assert.ok(f.store.objects.get(lostRecent.id));
    assert.ok(f.store.objects.get(onlineOld.id));
  } finally {
    await f.cleanup();
  }
});

test('objects heard once, a day ago or more, are deleted: a flood of fresh accounts does not stay for ever', async () => {
  const f = await startStore();
  try {
    const upsert = (account: string, at: number, uid?: string) =>
      f.store.write.objects.upsertMain({ account, receiverId: 1, receiverKind: 'tcp', at, ...(uid ? { uid } : {}) });
    const stranger = await upsert('F00001', NOW - DAY_MS - 1);
    const panel = await upsert('1234', NOW - 3 * DAY_MS);
    await f.store.write.objects.markSeen(panel.id, NOW - 3 * DAY_MS + 60_000, null);
    const today = await upsert('F00002', NOW - DAY_MS + 60_000);
    const device = await upsert('5678', NOW - 3 * DAY_MS, '00A1B2C3D4');
    const carrier = await upsert('9999', NOW - 3 * DAY_MS);
    await f.store.write.objects.upsertRelated(carrier.id, '77', { at: NOW - 3 * DAY_MS + 10 });
    const report = await runRetention(f.store, policy(), NOW);
    assert.is(report.objectsDeleted, 1);
    assert.is(f.store.objects.get(stranger.id), null, 'heard once, more than a day ago');
    for (const kept of [panel, today, device, carrier]) assert.ok(f.store.objects.get(kept.id), kept.account);
  } finally {
    await f.cleanup();
  }
});

test('each object keeps its newest device_session_log_count sessions', async () => {
  const f = await startStore();
  try {
    const a = await f.store.write.objects.upsertMain({ account: '1', receiverId: 1, receiverKind: 'tcp', at: NOW });
    const b = await f.store.write.objects.upsertMain({ account: '2', receiverId: 1, receiverKind: 'tcp', at: NOW });
    const aSessions: number[] = [];
    for (let i = 0; i < 8; i++) aSessions.push(await f.store.write.sessions.open(a.id, NOW + i, `10.0.0.1:${i}`));
    const bSessions: number[] = [];
    for (let i = 0; i < 2; i++) bSessions.push(await f.store.write.sessions.open(b.id, NOW + i, null));
    const report = await runRetention(f.store, policy({ sessionLogCount: 3 }), NOW);
    assert.is(report.sessionsTrimmed, 5);
    assert.equal(
      f.store.sessions.recent(a.id, 25).map((s) => s.id),
      aSessions.slice(5).reverse(),
    );
    assert.equal(
      f.store.sessions.recent(b.id, 25).map((s) => s.id),
      bSessions.reverse(),
    );
  } finally {
    await f.cleanup();
  }
});

test('a pass stops between batches when asked to', async () => {
  const f = await startStore();
  try {
    await append(
      f.store,
      Array.from({ length: EVENT_BATCH_LIMIT + 10 }, () => NOW - 50 * DAY_MS),
    );
    let checks = 0;
    const report = await runRetention(f.store, policy(), NOW, () => ++checks > 1);
    assert.is(report.interrupted, true);
    assert.is(report.eventsDeleted, EVENT_BATCH_LIMIT);
  } finally {
    await f.cleanup();
  }
});

test('the policy comes from the database section; only enabled outputs hold events back', () => {
  const settings = defaultSettings();
  settings.outputs = [output(1, true), output(2, false), output(3, true)];
  assert.equal(retentionPolicy(settings, [7]), {
    removeEventsAgeDays: 90,
    removeLostObjectsAgeDays: 30,
    sessionLogCount: 10,
    outputIds: [1, 3],
    extraFloors: [7],
  });
});

test.run();
