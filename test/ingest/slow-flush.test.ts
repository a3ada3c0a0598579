/**
 * The group commit on slow storage (docs/writer.md §Slow storage): when one commit takes as long as
 * an SD card's flush, the devices a batch answered come back within a fraction of it, and the gate
 * gathers them into the next commit instead of splitting the fleet into groups that take turns
 * (each flush then carries part of the fleet, and every device waits for two). A real writer thread
 * and SQLite file, each journal batch made FLUSH_MS slower (helpers/slow-flush-writer.ts); closed-loop
 * devices that send again a few milliseconds after their ACK, as panels on a busy network do.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { Store } from '../../src/store/store.js';
import { WriterProxy } from '../../src/writer/writer-proxy.js';
import { sleep } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { frame } from './helpers/items.js';

const FLUSH_MS = 12;
/** How long the devices run: about 60 commits. */
const RUN_MS = 800;

async function rig(): Promise<{ ingest: EventIngest; close(): Promise<void> }> {
  const dir = tempDir('vigil-slow-flush-');
  const path = join(dir.path, 'vigil.db');
  writeFileSync(`${path}.flush-ms`, String(FLUSH_MS));
  const writer = new WriterProxy({
    path,
    logger: silentLogger,
    script: new URL('./helpers/slow-flush-writer.js', import.meta.url),
  });
  const store = new Store(path, silentLogger, undefined, { writer });
  await store.start();
  const ingest = new EventIngest({ writer, logger: silentLogger });
  store.onStop(() => ingest.close());
  return {
    ingest,
    close: async () => {
      await store.stop();
      dir.remove();
    },
  };
}

/** `devices` closed loops, each back `returnMs(i)` after its ACK, until `RUN_MS` passed; resolves with the cycles. */
async function fleet(ingest: EventIngest, devices: number, returnMs: (i: number) => number): Promise<number> {
  let cycles = 0;
  const until = performance.now() + RUN_MS;
  const loop = async (i: number): Promise<void> => {
    const account = `S${String(i).padStart(3, '0')}`;
    while (performance.now() < until) {
      await ingest.submit([frame(account)]);
      cycles++;
      await sleep(returnMs(i));
    }
  };
  await Promise.all(Array.from({ length: devices }, (_, i) => loop(i)));
  return cycles;
}

test('10 devices back within a few ms of their ACK go in one commit per flush, not in groups taking turns', async () => {
  const r = await rig();
  try {
    // The first answer teaches the gate how long a commit takes.
    await r.ingest.submit([frame('S000')]);
    const flushes0 = r.ingest.stats.flushes;
    // Device i comes back after 1..5 ms: the fleet's round trip spreads over 4 ms, a third of a flush.
    const cycles = await fleet(r.ingest, 10, (i) => 1 + (i % 5));
    const flushes = r.ingest.stats.flushes - flushes0;
    const perFlush = cycles / flushes;
    assert.ok(perFlush >= 8, `${perFlush.toFixed(1)} events per commit (${cycles} in ${flushes} commits)`);
  } finally {
    await r.close();
  }
});

test('one device never waits for a gather: one commit per event, no gather armed', async () => {
  const r = await rig();
  try {
    // The first answers teach the gate how long a commit takes: half of one would be a long gather.
    for (let i = 0; i < 3; i++) await r.ingest.submit([frame('S000')]);
    const flushes0 = r.ingest.stats.flushes;
    const cycles = await fleet(r.ingest, 1, () => 1);
    assert.is(r.ingest.stats.flushes - flushes0, cycles);
    assert.equal([r.ingest.gate.stats.filled, r.ingest.gate.stats.timedOut], [0, 0], 'no gather armed');
  } finally {
    await r.close();
  }
});

test.run();
