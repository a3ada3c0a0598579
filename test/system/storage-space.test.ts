/**
 * The free-space watch (docs/store.md §Free space) on this machine's real file system and a real
 * store file: the figures statfs gives, the trouble and its hysteresis, an unreadable directory,
 * and the free pages retention leaves inside the database counted as space.
 */
import { mkdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import {
  STORAGE_HEALTH,
  StorageSpaceWatch,
  spaceIsLow,
  troubleBelow,
  DEFAULT_STORAGE_THRESHOLDS,
} from '../../src/system/storage-space.js';
import { tempDir } from '../helpers/temp-dir.js';
import { sampleEvent, startStore } from '../store/helpers/store-fixture.js';

const GiB = 1024 ** 3;

function freeNow(dir: string): { total: number; free: number } {
  const s = statfsSync(dir);
  return { total: s.blocks * s.bsize, free: s.bavail * s.bsize };
}

test('trouble level and hysteresis: the larger of the byte floor and the share (at most 2 GiB); restored only above the level × restoreFactor', () => {
  const t = DEFAULT_STORAGE_THRESHOLDS;
  assert.is(troubleBelow(16e9, t), 16e9 * 0.05, 'a 16 GB card: 5 %');
  assert.is(troubleBelow(2e9, t), 256 * 1024 * 1024, 'a 2 GB card: the 256 MiB floor');
  assert.is(troubleBelow(64e9, t), 2 * GiB, 'a 64 GB card: 5 % is 3.2 GB, capped at 2 GiB');
  assert.is(troubleBelow(1e12, t), 2 * GiB, 'a 1 TB disk: the cap, not 50 GB');
  const total = 16e9;
  const below = troubleBelow(total, t);
  assert.is(spaceIsLow({ totalBytes: total, freeBytes: below - 1 }, t, false), true);
  assert.is(spaceIsLow({ totalBytes: total, freeBytes: below }, t, false), false);
  assert.is(spaceIsLow({ totalBytes: total, freeBytes: below + 1 }, t, true), true, 'still low just above the level');
  assert.is(spaceIsLow({ totalBytes: total, freeBytes: below * t.restoreFactor }, t, true), false);
});

test('on the real file system: ok with statfs figures, degraded with a detail below the level, ok again only past the restore level', async () => {
  const dir = tempDir('vigil-space-');
  const health = new HealthRegistry();
  let freePages = 0;
  const { total, free } = freeNow(dir.path);
  // Levels set around what this disk really has free: the watch reads the real statfs every time.
  const watch = new StorageSpaceWatch({
    dir: dir.path,
    health,
    freePageBytes: () => freePages,
    logger: silentLogger,
    thresholds: { minFreeFraction: 0, minFreeBytes: 1 },
  });
  try {
    await watch.start();
    const ok = health.get(STORAGE_HEALTH)!;
    assert.is(ok.state, 'ok');
    assert.is(ok.kind, 'storage');
    assert.is(ok.metrics.total_mib, Math.floor(total / 1024 / 1024));
    assert.ok(
      Math.abs(Number(ok.metrics.free_mib) - free / 1024 / 1024) < 256,
      `free ${ok.metrics.free_mib} MiB against statfs ${free} bytes`,
    );
    assert.is(ok.metrics.trouble_below_mib, 0);
    await watch.stop();
    assert.is(health.get(STORAGE_HEALTH), undefined, 'stop removes the component');

    const tight = new StorageSpaceWatch({
      dir: dir.path,
      health,
      freePageBytes: () => freePages,
      logger: silentLogger,
      thresholds: { minFreeFraction: 0, minFreeBytes: free + GiB },
    });
    await tight.start();
    try {
      const low = health.get(STORAGE_HEALTH)!;
      assert.is(low.state, 'degraded');
      assert.match(low.detail ?? '', /^low on space: [\d.]+ MiB free of [\d.]+ MiB, trouble below [\d.]+ MiB$/);
      freePages = 1.1 * GiB; // above the level, below level × 1.25
      tight.check();
      assert.is(health.get(STORAGE_HEALTH)!.state, 'degraded', 'no flapping at the line');
      assert.ok(
        Number(health.get(STORAGE_HEALTH)!.metrics.free_mib) > (free + GiB) / 1024 / 1024,
        'the figures still follow',
      );
      freePages = free + 2 * GiB;
      tight.check();
      assert.is(health.get(STORAGE_HEALTH)!.state, 'ok');
      assert.is(health.get(STORAGE_HEALTH)!.detail, null);
    } finally {
      await tight.stop();
    }
  } finally {
    dir.remove();
  }
});

/** A watch on a `data` directory of its own, which a test can remove and make again; trouble below `minFreeBytes`. */
function watchOnDataDir(minFreeBytes: number) {
  const dir = tempDir('vigil-space-');
  const data = join(dir.path, 'data');
  mkdirSync(data);
  const health = new HealthRegistry();
  const watch = new StorageSpaceWatch({
    dir: data,
    health,
    freePageBytes: () => 0,
    logger: silentLogger,
    thresholds: { minFreeFraction: 0, minFreeBytes },
  });
  return { dir, data, health, watch };
}

test('a data dir that cannot be read is degraded with the reason, and ok when it is back', async () => {
  const { dir, data, health, watch } = watchOnDataDir(1);
  try {
    await watch.start();
    assert.is(health.get(STORAGE_HEALTH)!.state, 'ok');
    rmSync(data, { recursive: true });
    assert.is(watch.check(), null);
    assert.is(health.get(STORAGE_HEALTH)!.state, 'degraded');
    assert.match(health.get(STORAGE_HEALTH)!.detail ?? '', /^free space unreadable: .*ENOENT/);
    mkdirSync(data);
    assert.ok(watch.check());
    assert.is(health.get(STORAGE_HEALTH)!.state, 'ok');
  } finally {
    await watch.stop();
    dir.remove();
  }
});

test('low, then unreadable, then low again: the detail says which, though the state stays degraded throughout', async () => {
  const { dir, data, health, watch } = watchOnDataDir(Number.MAX_SAFE_INTEGER);
  const detail = (): string => `${health.get(STORAGE_HEALTH)!.state}: ${health.get(STORAGE_HEALTH)!.detail ?? ''}`;
  try {
    await watch.start();
    assert.match(detail(), /^degraded: low on space: /);
    rmSync(data, { recursive: true });
    watch.check();
    assert.match(detail(), /^degraded: free space unreadable: /);
    mkdirSync(data);
    watch.check();
    assert.match(detail(), /^degraded: low on space: /);
  } finally {
    await watch.stop();
    dir.remove();
  }
});

test('Store.freePageBytes: rows retention deleted leave free pages, counted as space; new rows take them first', async () => {
  const fx = await startStore();
  try {
    // Migrations leave a page or two of a rebuilt table.
    const fresh = fx.store.freePageBytes();
    assert.ok(fresh < 8 * 1024, `a fresh file has almost no free pages: ${fresh} bytes`);
    const old = Array.from({ length: 2000 }, (_, i) => sampleEvent({ account: `old-${i}`, receivedAt: 1_000 + i }));
    await fx.store.write.events.append(old);
    let deleted = 0;
    for (let n = -1; n !== 0; ) deleted += n = await fx.store.write.events.deleteOlderThan(10_000, { batchLimit: 500 });
    assert.is(deleted, 2000);
    const afterDelete = fx.store.freePageBytes();
    assert.ok(afterDelete > fresh + 100 * 1024, `free pages after deleting 2,000 rows: ${afterDelete} bytes`);

    const health = new HealthRegistry();
    const watch = new StorageSpaceWatch({
      dir: fx.dir,
      health,
      freePageBytes: () => fx.store.freePageBytes(),
      logger: silentLogger,
      thresholds: { minFreeFraction: 0, minFreeBytes: 1 },
    });
    const figures = watch.check()!;
    assert.ok(
      figures.freeBytes >= freeNow(fx.dir).free + afterDelete - 64 * 1024 * 1024,
      "the free pages are counted with the file system's space",
    );

    await fx.store.write.events.append(
      Array.from({ length: 500 }, (_, i) => sampleEvent({ account: `new-${i}`, receivedAt: 20_000 + i })),
    );
    assert.ok(fx.store.freePageBytes() < afterDelete, 'new rows went into the free pages');
  } finally {
    await fx.cleanup();
  }
});

test.run();
