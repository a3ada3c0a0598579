import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import type { MainObjectInput } from '../../src/store/types.js';
import { startStore } from './helpers/store-fixture.js';
import { rejects } from '../helpers/rejects.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function main(overrides: Partial<MainObjectInput> = {}): MainObjectInput {
  return {
    account: '001234',
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '10.0.0.5:5000',
    at: T0,
    ...overrides,
  };
}

test('a new main device gets a full record; the account keeps its leading zeros', async () => {
  const fx = await startStore();
  try {
    const record = await fx.store.write.objects.upsertMain(main({ uid: 'ab12cd34', hwId: 'HW-7', firmware: '1.2.3' }));
    assert.equal(record, {
      id: 1,
      account: '001234',
      uid: 'AB12CD34',
      hwId: 'HW-7',
      firmware: '1.2.3',
      mainObjectId: null,
      receiverId: 1,
      receiverKind: 'tcp',
      transport: 'tcp',
      remoteAddress: '10.0.0.5:5000',
      firstSeen: T0,
      lastSeen: T0,
      lastPing: null,
      connectionState: 'online',
      supervisionState: null,
      linkPeriodS: null,
      sms: false,
      restoreCount: 0,
    });
    assert.equal(fx.store.objects.findByUid('AB12CD34'), record);
  } finally {
    await fx.cleanup();
  }
});

test('a device with a UID is one object wherever it connects; its account and receiver follow it', async () => {
  const fx = await startStore();
  try {
    const first = await fx.store.write.objects.upsertMain(main({ uid: 'AB12CD34' }));
    const moved = await fx.store.write.objects.upsertMain(
      main({
        uid: 'ab12cd34',
        account: '9999',
        receiverId: 2,
        receiverKind: 'udp',
        remoteAddress: null,
        at: T0 + 1000,
      }),
    );
    assert.is(moved.id, first.id);
    assert.equal(
      [moved.account, moved.receiverId, moved.receiverKind, moved.remoteAddress],
      ['9999', 2, 'udp', '10.0.0.5:5000'],
    );
    assert.equal([moved.firstSeen, moved.lastSeen], [T0, T0 + 1000]);
    assert.is(fx.store.objects.all().length, 1);
  } finally {
    await fx.cleanup();
  }
});

test('a device without a UID is its account on its receiver: same account on another receiver is another object', async () => {
  const fx = await startStore();
  try {
    const a = await fx.store.write.objects.upsertMain(main());
    const again = await fx.store.write.objects.upsertMain(main({ at: T0 + 5 }));
    const other = await fx.store.write.objects.upsertMain(main({ receiverId: 2 }));
    const zeros = await fx.store.write.objects.upsertMain(main({ account: '1234' }));
    assert.is(again.id, a.id);
    assert.is.not(other.id, a.id);
    assert.is.not(zeros.id, a.id);
    assert.equal(
      fx.store.objects.findByAccount('001234').map((o) => o.receiverId),
      [1, 2],
    );
    assert.equal(
      fx.store.objects.findByAccount('001234', 2).map((o) => o.id),
      [other.id],
    );
  } finally {
    await fx.cleanup();
  }
});

test('a device that identifies itself later adopts its UID-less record', async () => {
  const fx = await startStore();
  try {
    const before = await fx.store.write.objects.upsertMain(main());
    const after = await fx.store.write.objects.upsertMain(main({ uid: 'FEED0001', hwId: 'HW', at: T0 + 10 }));
    assert.is(after.id, before.id);
    assert.is(after.uid, 'FEED0001');
    assert.is(fx.store.objects.all().length, 1);
  } finally {
    await fx.cleanup();
  }
});

test('partial UID matches main devices whose UID ends with it (upper-case hex), several when ambiguous', async () => {
  const fx = await startStore();
  try {
    const a = await fx.store.write.objects.upsertMain(main({ uid: '00A1B2C3', receiverId: 1 }));
    const b = await fx.store.write.objects.upsertMain(main({ uid: '77F1B2C3', receiverId: 2 }));
    await fx.store.write.objects.upsertMain(main({ uid: 'B2C30000', receiverId: 1 }));
    await fx.store.write.objects.upsertMain(main({ account: 'NOUID' }));
    const ids = (partial: string, visible: number[] | null = null): number[] =>
      fx.store.objects.findByPartialUid(partial, visible).map((o) => o.id);
    assert.equal(ids('a1b2c3'), [a.id]);
    assert.equal(ids('B2C3'), [a.id, b.id]);
    assert.equal(ids('B2C3', [2]), [b.id]);
    assert.equal(ids('00A1B2C3'), [a.id]);
    assert.equal(ids('100A1B2C3'), []);
    assert.equal(ids('A1B2'), []); // a middle part is not a suffix
    assert.equal(ids(''), []);
    assert.equal(ids('%'), []);
  } finally {
    await fx.cleanup();
  }
});

test('related objects are their account within their main device and inherit its receiver', async () => {
  const fx = await startStore();
  try {
    const hub = await fx.store.write.objects.upsertMain(main({ uid: 'AAAA0001' }));
    const hub2 = await fx.store.write.objects.upsertMain(
      main({ uid: 'AAAA0002', receiverId: 3, receiverKind: 'com', transport: 'serial' }),
    );
    const panel = await fx.store.write.objects.upsertRelated(hub.id, '5555', { at: T0 + 1 });
    const same = await fx.store.write.objects.upsertRelated(hub.id, '5555', { at: T0 + 2, hwId: 'P-1' });
    const other = await fx.store.write.objects.upsertRelated(hub2.id, '5555', { at: T0 + 3 });
    assert.is(same.id, panel.id);
    assert.equal(
      [same.mainObjectId, same.receiverId, same.hwId, same.lastSeen, same.remoteAddress],
      [hub.id, 1, 'P-1', T0 + 2, '10.0.0.5:5000'],
    );
    assert.equal(
      [other.mainObjectId, other.receiverId, other.receiverKind, other.transport],
      [hub2.id, 3, 'com', 'serial'],
    );
    assert.equal(
      fx.store.objects.relatedOf(hub.id).map((o) => o.id),
      [panel.id],
    );
    // a related account never shows up as a main device
    assert.equal(fx.store.objects.findByAccount('5555'), []);
    await rejects(fx.store.write.objects.upsertRelated(panel.id, '1', { at: T0 }), (err: unknown) =>
      isVigilError(err, 'NOT_FOUND'),
    );
  } finally {
    await fx.cleanup();
  }
});

test('markSeen, pings, connection state and supervision fields update; time never moves back', async () => {
  const fx = await startStore();
  try {
    const o = await fx.store.write.objects.upsertMain(main());
    await fx.store.write.objects.markSeen(o.id, T0 + 100, '10.0.0.9:1');
    await fx.store.write.objects.markSeen(o.id, T0 + 50, null, { ping: true });
    await fx.store.write.objects.setConnectionState(o.id, 'lost');
    await fx.store.write.objects.updateSupervision(o.id, {
      supervisionState: 'restoring',
      linkPeriodS: 90,
      sms: true,
      restoreCount: 2,
    });
    await fx.store.write.objects.updateSupervision(o.id, {});
    const r = fx.store.objects.get(o.id);
    assert.equal(
      [
        r?.lastSeen,
        r?.remoteAddress,
        r?.lastPing,
        r?.connectionState,
        r?.supervisionState,
        r?.linkPeriodS,
        r?.sms,
        r?.restoreCount,
      ],
      [T0 + 100, '10.0.0.9:1', T0 + 50, 'lost', 'restoring', 90, true, 2],
    );
  } finally {
    await fx.cleanup();
  }
});

test('list is newest first, filtered by visibility/account/receiver, paged by cursor', async () => {
  const fx = await startStore();
  try {
    for (let i = 0; i < 6; i++)
      await fx.store.write.objects.upsertMain(main({ account: `A${i % 2}`, receiverId: (i % 3) + 1 }));
    const ids = (f: Partial<Parameters<typeof fx.store.objects.list>[0]>): number[] =>
      fx.store.objects.list({ receiverIds: null, limit: 100, ...f }).items.map((o) => o.id);
    assert.equal(ids({}), [6, 5, 4, 3, 2, 1]);
    assert.equal(ids({ receiverIds: [1, 3] }), [6, 4, 3, 1]);
    assert.equal(ids({ receiverIds: [] }), []);
    assert.equal(ids({ account: 'A1' }), [6, 4, 2]);
    assert.equal(ids({ receiverId: 2 }), [5, 2]);
    const first = fx.store.objects.list({ receiverIds: null, limit: 4 });
    assert.equal([first.items.map((o) => o.id), first.nextCursor], [[6, 5, 4, 3], 3]);
    const second = fx.store.objects.list({ receiverIds: null, limit: 4, before: 3 });
    assert.equal([second.items.map((o) => o.id), second.nextCursor], [[2, 1], null]);
  } finally {
    await fx.cleanup();
  }
});

test('retention removes lost objects older than the cutoff with their related objects and sessions', async () => {
  const fx = await startStore();
  try {
    const oldLost = await fx.store.write.objects.upsertMain(main({ uid: '01', at: T0 }));
    const related = await fx.store.write.objects.upsertRelated(oldLost.id, '77', { at: T0 });
    const oldOnline = await fx.store.write.objects.upsertMain(main({ uid: '02', at: T0 }));
    const recentLost = await fx.store.write.objects.upsertMain(main({ uid: '03', at: T0 + 10_000 }));
    await fx.store.write.objects.setConnectionState(oldLost.id, 'lost');
    await fx.store.write.objects.setConnectionState(recentLost.id, 'lost');
    await fx.store.write.sessions.open(oldLost.id, T0, null);
    assert.is(await fx.store.write.objects.deleteLostOlderThan(T0 + 5000), 1);
    assert.equal(
      fx.store.objects.all().map((o) => o.id),
      [oldOnline.id, recentLost.id],
    );
    assert.is(fx.store.objects.get(related.id), null);
    assert.equal(fx.store.sessions.recent(oldLost.id, 10), []);
    // ids are never reused
    assert.is((await fx.store.write.objects.upsertMain(main({ uid: '04' }))).id, recentLost.id + 1);
  } finally {
    await fx.cleanup();
  }
});

test('session log: open, update, close, keep the newest N per device', async () => {
  const fx = await startStore();
  try {
    const o = await fx.store.write.objects.upsertMain(main());
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await fx.store.write.sessions.open(o.id, T0 + i * 1000, `10.0.0.${i}:1`));
    await fx.store.write.sessions.update(ids[3]!, { events: 1, bytesIn: 10, bytesOut: 5 });
    await fx.store.write.sessions.close(ids[2]!, T0 + 2500, { events: 4, bytesIn: 400, bytesOut: 80 });
    assert.is(await fx.store.write.sessions.trim(o.id, 2), 2);
    assert.equal(fx.store.sessions.recent(o.id, 25), [
      {
        id: ids[3],
        objectId: o.id,
        connectedAt: T0 + 3000,
        disconnectedAt: null,
        remoteAddress: '10.0.0.3:1',
        events: 1,
        bytesIn: 10,
        bytesOut: 5,
      },
      {
        id: ids[2],
        objectId: o.id,
        connectedAt: T0 + 2000,
        disconnectedAt: T0 + 2500,
        remoteAddress: '10.0.0.2:1',
        events: 4,
        bytesIn: 400,
        bytesOut: 80,
      },
    ]);
  } finally {
    await fx.cleanup();
  }
});

test.run();
