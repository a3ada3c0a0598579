/**
 * The sightings heard ahead of the throttled stored ones (src/store/live-sightings.ts, docs/store.md
 * §Sightings): every read of the store's objects shows the newer of the two, on a real SQLite file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startStore } from './helpers/store-fixture.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const S = 1000;

test('every objects read shows what was heard when it is newer than the stored last_seen / last_ping', async () => {
  const fx = await startStore();
  try {
    const { store } = fx;
    const device = await store.write.objects.upsertMain({
      account: '5001',
      receiverId: 1,
      receiverKind: 'tcp',
      at: T0,
    });
    const related = await store.write.objects.upsertRelated(device.id, '5002', { at: T0 });
    await store.write.objects.markSeen(device.id, T0 + 10 * S, null, { ping: true });
    store.sightings.note(device.id, T0 + 40 * S, false);
    store.sightings.note(device.id, T0 + 30 * S, true);
    store.sightings.note(related.id, T0 + 40 * S, false);
    const shown = (o: { lastSeen: number; lastPing: number | null } | null | undefined) => [o?.lastSeen, o?.lastPing];
    const expected = [T0 + 40 * S, T0 + 30 * S];
    assert.equal(shown(store.objects.get(device.id)), expected);
    assert.equal(shown(store.objects.findByAccount('5001', 1)[0]), expected);
    assert.equal(
      shown(store.objects.list({ receiverIds: null, limit: 10 }).items.find((o) => o.id === device.id)),
      expected,
    );
    assert.equal(shown(store.objects.all().find((o) => o.id === device.id)), expected);
    assert.equal(
      shown(store.objects.relatedOf(device.id)[0]),
      [T0 + 40 * S, null],
      'never pinged: last_ping stays null',
    );
    assert.equal(shown(store.objects.findRelated(device.id, '5002')), [T0 + 40 * S, null]);
  } finally {
    await fx.cleanup();
  }
});

test('a stored value newer than what was heard wins, and an entry the store caught up with is dropped', async () => {
  const fx = await startStore();
  try {
    const { store } = fx;
    const device = await store.write.objects.upsertMain({
      account: '5003',
      receiverId: 1,
      receiverKind: 'udp',
      at: T0,
    });
    store.sightings.note(device.id, T0 + 20 * S, true);
    assert.is(store.sightings.size, 1);
    await store.write.objects.markSeen(device.id, T0 + 20 * S, null, { ping: true }); // the sweep
    assert.equal(
      [store.objects.get(device.id)!.lastSeen, store.objects.get(device.id)!.lastPing],
      [T0 + 20 * S, T0 + 20 * S],
    );
    assert.is(store.sightings.size, 0, 'the store shows the same from now on');
    store.sightings.note(device.id, T0 + 25 * S, false);
    await store.write.objects.markSeen(device.id, T0 + 60 * S, null); // heard elsewhere meanwhile: the stored value is newer
    assert.equal(
      [store.objects.get(device.id)!.lastSeen, store.objects.get(device.id)!.lastPing],
      [T0 + 60 * S, T0 + 20 * S],
    );
  } finally {
    await fx.cleanup();
  }
});

test.run();
