/**
 * Migration 9: the DC-09 deviations an object's panel showed (docs/dc09.md §12), kept as bits that are
 * only ever added, read back as names in src/core/dc09-quirks.ts order; absent for a standard panel.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DC09_QUIRKS, quirkMask, quirkNames } from '../../src/core/dc09-quirks.js';
import { openDatabase } from '../../src/store/database.js';
import { createRepos } from '../../src/store/repos.js';
import { startStore } from './helpers/store-fixture.js';

test('quirk marks are added, never cleared, and read back in a fixed order', async () => {
  const fx = await startStore();
  try {
    const o = await fx.store.write.objects.upsertMain({
      account: '9413',
      receiverId: 1,
      receiverKind: 'tcp',
      transport: 'tcp',
      remoteAddress: '10.0.0.5:5000',
      at: 1,
    });
    assert.is(fx.store.objects.get(o.id)!.dc09Quirks, undefined);
    await fx.store.stop();
    // Only the journal's group commit adds quirks (src/writer/batch-writer.ts): the writer's own
    // repository on its own connection, as the writer thread opens it.
    const db = openDatabase(fx.path);
    try {
      const { objects } = createRepos(db, fx.clock);
      objects.addQuirks(o.id, quirkMask(['empty-line']));
      objects.addQuirks(o.id, quirkMask(['binary-crc']));
      objects.addQuirks(o.id, quirkMask(['binary-crc']));
      assert.equal(objects.get(o.id)!.dc09Quirks, ['binary-crc', 'empty-line']);
    } finally {
      db.close();
    }
    const reopened = await fx.reopen();
    assert.equal(reopened.objects.get(o.id)!.dc09Quirks, ['binary-crc', 'empty-line'], 'stored');
  } finally {
    await fx.cleanup();
  }
});

test('the mask order is the stored format: each name keeps its bit; unknown bits are ignored', () => {
  assert.equal(DC09_QUIRKS, ['binary-crc', 'cr-counted', 'trailing-bytes', 'empty-line', 'text-account']);
  assert.is(quirkMask(['binary-crc', 'text-account']), 0b10001);
  assert.equal(quirkNames(0b10001 | (1 << 20)), ['binary-crc', 'text-account']);
});

test.run();
