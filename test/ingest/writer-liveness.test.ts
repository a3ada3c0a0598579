/**
 * The journal writer's liveness probe (docs/watchdog.md): the watchdog's "writer alive and
 * committing" check reads stalledMs and lastCommitAt, over a real writer thread and SQLite file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { WriterProxy } from '../../src/writer/writer-proxy.js';
import { Store } from '../../src/store/store.js';
import { sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { frame } from './helpers/items.js';

async function rig(script?: URL) {
  const dir = tempDir('vigil-liveness-');
  const path = join(dir.path, 'vigil.db');
  const store = new Store(path, silentLogger, new HealthRegistry());
  await store.start();
  const writer = new WriterProxy({ path, logger: silentLogger, ...(script ? { script } : {}) });
  const ingest = new EventIngest({ writer, logger: silentLogger });
  store.onStop(() => ingest.close());
  return {
    path,
    ingest,
    writer,
    async close() {
      await store.stop();
      dir.remove();
    },
  };
}

test('before any batch: no thread to ping, nothing stalled, no commit yet', async () => {
  const r = await rig();
  try {
    r.ingest.writerProbe.ping();
    assert.equal(r.ingest.writerProbe.liveness(), { stalledMs: 0, lastCommitAt: null, commits: 0 });
  } finally {
    await r.close();
  }
});

test('a live thread answers the ping: stalledMs back to 0; lastCommitAt is the last COMMIT', async () => {
  const r = await rig();
  try {
    const before = Date.now();
    await r.ingest.submit([frame('L001')]);
    const { lastCommitAt, commits } = r.ingest.writerProbe.liveness();
    assert.is(commits, 1);
    assert.ok(
      lastCommitAt !== null && lastCommitAt >= before && lastCommitAt <= Date.now(),
      `lastCommitAt ${lastCommitAt}`,
    );
    r.ingest.writerProbe.ping();
    assert.ok(r.writer.liveness().stalledMs >= 0);
    await waitFor(() => r.writer.liveness().stalledMs === 0, 2000, 5);
  } finally {
    await r.close();
  }
});

test('a thread that stalls leaves its ping unanswered: stalledMs grows until it answers', async () => {
  const r = await rig(new URL('./helpers/slow-ping-writer.js', import.meta.url));
  try {
    await r.ingest.submit([frame('L002')]);
    writeFileSync(`${r.path}.stall`, '600');
    r.writer.ping();
    await sleep(300);
    const stalled = r.writer.liveness().stalledMs;
    assert.ok(stalled >= 250, `stalled ${stalled} ms`);
    r.writer.ping(); // one ping outstanding at a time: this one is not sent
    await waitFor(() => r.writer.liveness().stalledMs === 0, 3000, 10);
  } finally {
    await r.close();
  }
});

test('a batch the thread has not answered counts too', async () => {
  const r = await rig(new URL('./helpers/slow-ping-writer.js', import.meta.url));
  try {
    await r.ingest.submit([frame('L003')]);
    writeFileSync(`${r.path}.stall`, '500');
    r.writer.ping();
    // The batch queues behind the stalled ping: both wait.
    const pending = r.ingest.submit([frame('L004')]);
    await sleep(250);
    assert.ok(r.writer.liveness().stalledMs >= 200);
    await pending;
    await waitFor(() => r.writer.liveness().stalledMs === 0, 3000, 10);
  } finally {
    await r.close();
  }
});

test.run();
