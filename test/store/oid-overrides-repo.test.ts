import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startStore } from './helpers/store-fixture.js';

test('an override can be set before the device ever connected and applies once it shows up', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.overrides.set({
      matchKind: 'uid',
      matchValue: 'ab12cd34',
      relatedOid: null,
      overrideOid: '00ff',
    });
    assert.is(fx.store.objects.all().length, 0);
    const device = await fx.store.write.objects.upsertMain({
      uid: 'AB12CD34',
      account: '1234',
      receiverId: 1,
      receiverKind: 'tcp',
      at: Date.UTC(2026, 0, 1),
    });
    assert.is(fx.store.overrides.resolve(device, null), '00FF');
  } finally {
    await fx.cleanup();
  }
});

test('set upserts, stores upper-case hex and keeps related overrides apart from the main one', async () => {
  const fx = await startStore();
  try {
    const { overrides } = fx.store;
    await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '00ab', relatedOid: null, overrideOid: 'c1' });
    fx.clock.advance(1000);
    await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '00AB', relatedOid: '', overrideOid: 'c2' });
    await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '00AB', relatedOid: '5e', overrideOid: 'd1' });
    assert.equal(overrides.list(), [
      { matchKind: 'oid', matchValue: '00AB', relatedOid: null, overrideOid: 'C2', updatedAt: fx.clock.now() },
      { matchKind: 'oid', matchValue: '00AB', relatedOid: '5E', overrideOid: 'D1', updatedAt: fx.clock.now() },
    ]);
    assert.equal(overrides.get('oid', '00ab', '5E')?.overrideOid, 'D1');
    assert.is(overrides.get('oid', '00AB', '5F'), null);
  } finally {
    await fx.cleanup();
  }
});

test('resolve: a UID match wins over an OID match; OID matching is exact (leading zeros count)', async () => {
  const fx = await startStore();
  try {
    const { overrides } = fx.store;
    await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '0012', relatedOid: null, overrideOid: 'AAAA' });
    assert.is(overrides.resolve({ uid: 'FEED', account: '0012' }, null), 'AAAA');
    await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'FEED', relatedOid: null, overrideOid: 'BBBB' });
    assert.is(overrides.resolve({ uid: 'feed', account: '0012' }, null), 'BBBB');
    assert.is(overrides.resolve({ uid: null, account: '0012' }, null), 'AAAA');
    assert.is(overrides.resolve({ account: '12' }, null), null);
    assert.is(overrides.resolve({}, null), null);
  } finally {
    await fx.cleanup();
  }
});

test('resolve: related and main overrides never stand in for each other', async () => {
  const fx = await startStore();
  try {
    const { overrides } = fx.store;
    await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'FEED', relatedOid: null, overrideOid: 'A1' });
    await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '0012', relatedOid: '0777', overrideOid: 'B2' });
    const device = { uid: 'FEED', account: '0012' };
    assert.is(overrides.resolve(device, null), 'A1');
    // the UID has no related override for 0777, the OID has: the OID's applies
    assert.is(overrides.resolve(device, '0777'), 'B2');
    assert.is(overrides.resolve(device, '0778'), null);
    await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'FEED', relatedOid: '0777', overrideOid: 'C3' });
    assert.is(overrides.resolve(device, '0777'), 'C3');
  } finally {
    await fx.cleanup();
  }
});

test('overrides persist across close and reopen', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'FEED', relatedOid: null, overrideOid: 'A1' });
    await fx.store.stop();
    const again = await fx.reopen();
    assert.is(again.overrides.resolve({ uid: 'FEED' }, null), 'A1');
  } finally {
    await fx.cleanup();
  }
});

test.run();
