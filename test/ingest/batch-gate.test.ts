/**
 * Gathering (src/ingest/batch-gate.ts, docs/receivers.md §Group commit): after an answer, the
 * devices just ACKed and those already waiting go in ONE commit; a gather that times out sends
 * what it has and the next answers send at once, for longer after each miss. Real SQLite store
 * with its writer thread (the gate's own rules: BatchGate alone).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { BatchGate, GATHER_CAP_MS, GATHER_COMMIT_SHARE, MAX_SKIP } from '../../src/ingest/batch-gate.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { borrowedWriter } from '../../src/writer/wire.js';
import type { Store } from '../../src/store/store.js';
import { storeWithWriter } from '../../src/writer/store-with-writer.js';
import { sleep } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { frame } from './helpers/items.js';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function rig(gatherMaxMs?: number): Promise<{ ingest: EventIngest; store: Store; close(): Promise<void> }> {
  const dir = tempDir('vigil-gate-');
  const { store, writer } = storeWithWriter(join(dir.path, 'vigil.db'), silentLogger);
  await store.start();
  const ingest = new EventIngest({
    // Store.stop() closes the writer, after the ingest drained.
    writer: borrowedWriter(writer),
    logger: silentLogger,
    ...(gatherMaxMs !== undefined && { gatherMaxMs }),
  });
  return {
    ingest,
    store,
    close: async () => {
      await ingest.close();
      await store.stop();
      dir.remove();
    },
  };
}

test('the devices just answered and those that come back turns later commit together', async () => {
  // A long gather limit: the test is about gathering, not about the machine's speed.
  const r = await rig(5000);
  try {
    await Promise.all([r.ingest.submit([frame('G001')]), r.ingest.submit([frame('G002')])]);
    assert.is(r.ingest.stats.flushes, 1);
    // Each device sends its next frame in its own turn of the event loop, as sockets do.
    const first = r.ingest.submit([frame('G001')]);
    await nextTurn();
    await nextTurn();
    assert.is(r.ingest.stats.flushes, 1, 'one of two devices back: still gathering');
    const second = r.ingest.submit([frame('G002')]);
    await Promise.all([first, second]);
    assert.equal([r.ingest.stats.flushes, r.ingest.stats.largestFlush, r.ingest.gate.stats.filled], [2, 2, 1]);
  } finally {
    await r.close();
  }
});

test('a gather that fills leaves from the submit that fills it, not a turn of the event loop later', async () => {
  const r = await rig(5000);
  try {
    await Promise.all([r.ingest.submit([frame('F001')]), r.ingest.submit([frame('F002')])]);
    const first = r.ingest.submit([frame('F001')]);
    assert.is(r.ingest.queued, 1, 'one of two devices back: it waits');
    const second = r.ingest.submit([frame('F002')]);
    assert.is(r.ingest.queued, 0, 'the second fills the gather: the batch has left');
    await Promise.all([first, second]);
    assert.equal([r.ingest.stats.flushes, r.ingest.stats.largestFlush, r.ingest.gate.stats.filled], [2, 2, 1]);
  } finally {
    await r.close();
  }
});

test('one device alone never arms a gather: its batches leave at once, whatever the gather limit', async () => {
  const r = await rig(5000);
  try {
    for (let i = 0; i < 5; i++) {
      await r.ingest.submit([frame('S001')]);
      assert.is(r.ingest.gate.gathering, false, `after answer ${i + 1}`);
    }
    assert.equal([r.ingest.stats.flushes, r.ingest.gate.stats.filled, r.ingest.gate.stats.timedOut], [5, 0, 0]);
  } finally {
    await r.close();
  }
});

test('a gather that times out sends what it has, and the next answers send at once', async () => {
  const r = await rig(50);
  try {
    // The gather starts when the first batch is answered, after this moment (libuv's clock is in
    // whole milliseconds: a 50 ms timer may fire up to 1 ms early against performance.now()).
    const started = performance.now();
    await Promise.all([r.ingest.submit([frame('H001')]), r.ingest.submit([frame('H002')])]);
    await r.ingest.submit([frame('H001')]);
    assert.ok(performance.now() - started >= 48, 'waited for the device that did not come back');
    assert.equal([r.ingest.stats.flushes, r.ingest.gate.stats.timedOut], [2, 1]);
    for (let i = 0; i < 3; i++) await r.ingest.submit([frame('H001')]);
    assert.equal(
      [r.ingest.stats.flushes, r.ingest.gate.stats.timedOut, r.ingest.gate.gathering],
      [5, 1, false],
      'the next answer does not gather',
    );
  } finally {
    await r.close();
  }
});

test('a gather that fills faster than a commit keeps gathering; one slower than the commits stops it for a while', async () => {
  const gate = new BatchGate(() => undefined, 5000);
  assert.is(gate.answered(2, 0, 1000), false, 'commits take 1 s: gather');
  assert.ok(gate.full(2));
  assert.is(gate.answered(2, 0, 1000), false, 'filled at once: gather again');
  gate.cancel();
  const slow = new BatchGate(() => undefined, 5000);
  assert.is(slow.answered(2, 0, 1), false);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.not.ok(slow.full(1));
  assert.ok(slow.full(2));
  assert.is(slow.answered(2, 0, 1), true, 'filled in 20 ms against 1 ms commits: send at once');
});

/** Answers (of commits taking `commitMs`) that send at once before the gate gathers again; that gather is cancelled. */
function answersAtOnce(gate: BatchGate, commitMs = 1000): number {
  let n = 0;
  while (gate.answered(2, 0, commitMs)) n++;
  gate.cancel();
  return n;
}

test('each miss doubles the answers that send at once; a gather that pays takes one miss back', async () => {
  // Commits take 1 s (EWMA): only timeouts miss here; the limit is GATHER_CAP_MS (half a commit, capped).
  const gate = new BatchGate(() => undefined, 2);
  assert.is(gate.answered(2, 0, 1000), false, 'gathers');
  await sleep(GATHER_CAP_MS + 15);
  assert.is(gate.stats.timedOut, 1);
  assert.is(answersAtOnce(gate), 1, 'one miss: one answer at once');
  assert.is(gate.answered(2, 0, 1000), false);
  await sleep(GATHER_CAP_MS + 15);
  assert.is(answersAtOnce(gate), 2, 'two misses: two');
  assert.is(gate.answered(2, 0, 1000), false);
  assert.ok(gate.full(2), 'filled at once: paid, one miss taken back');
  assert.is(gate.answered(2, 0, 1000), false, 'no skip after a paid gather');
  await sleep(GATHER_CAP_MS + 15);
  assert.is(answersAtOnce(gate), 2, 'two misses again (not three: one was taken back; not one: not forgotten)');
});

test('on slow storage a gather waits up to half a commit (at most GATHER_CAP_MS), never less than its fast limit', async () => {
  const limitAfter = (commitMs: number): number => {
    const gate = new BatchGate(() => undefined, 1);
    assert.is(gate.answered(2, 0, commitMs), false);
    gate.cancel();
    return gate.limit;
  };
  assert.is(limitAfter(0.3), 1, 'fast storage: the fast limit');
  assert.is(limitAfter(12), 12 * GATHER_COMMIT_SHARE, '12 ms commits: a share of one');
  assert.is(limitAfter(400), GATHER_CAP_MS, 'a stalled commit: the cap');
  // The timer keeps the limit: released no earlier than it.
  let released = 0;
  const gate = new BatchGate(() => (released = performance.now()), 1);
  const armed = performance.now();
  gate.answered(2, 0, 12);
  await sleep(12 * GATHER_COMMIT_SHARE + 30);
  assert.is(gate.stats.timedOut, 1);
  assert.ok(released - armed >= 12 * GATHER_COMMIT_SHARE, `released after ${(released - armed).toFixed(1)} ms`);
});

/** Keeps the event loop turning without waiting idle (as 100 devices' reads do) until stop() is called. */
function busyLoop(): { stop(): void } {
  let spinning = true;
  const spin = (): void => {
    const until = performance.now() + 0.05;
    while (performance.now() < until);
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  return {
    stop: () => {
      spinning = false;
    },
  };
}

test('on a busy event loop a gather still waits its whole limit (a 1 ms timer fires when the millisecond turns)', async () => {
  // The receivers keep the loop turning; libuv's clock counts whole milliseconds, so a bare 1 ms
  // timer fired 0.2 ms after it was armed on average at 10 devices (docs/benchmarks.md §Ingest).
  const busy = busyLoop();
  const waited: number[] = [];
  try {
    for (let i = 0; i < 30; i++) {
      await new Promise<void>((resolve) => {
        const armed = performance.now();
        const gate = new BatchGate(() => {
          waited.push(performance.now() - armed);
          resolve();
        }, 1);
        assert.is(gate.answered(2, 0, 0.5), false, 'gathers');
      });
    }
  } finally {
    busy.stop();
  }
  assert.equal(
    waited.filter((ms) => ms < 0.95).map((ms) => ms.toFixed(3)),
    [],
    'no gather released before its limit',
  );
});

test('misses in a row (a paced fleet) pipeline for at most MAX_SKIP answers at a time', async () => {
  // Commits "take" 0 ms and the loop waits idle: every gather is slower than a commit, a miss. On a
  // loaded machine the thread may be descheduled while it works, and the gate then rightly sees a
  // busy loop (no miss, one taken back): the answers that send at once are checked against the
  // misses the gate counted, until MAX_SKIP has been reached three times (bounded in turns and time).
  const gate = new BatchGate(() => undefined, 5000);
  /** More misses than those that reach MAX_SKIP are not counted (they would take as many gathers back). */
  const missesAtMax = Math.ceil(Math.log2(MAX_SKIP)) + 1;
  let misses = 0;
  let atMax = 0;
  const deadline = performance.now() + 20_000;
  for (let turn = 0; atMax < 3; turn++) {
    assert.ok(turn < 200 && performance.now() < deadline, `MAX_SKIP reached ${atMax} times in ${turn} gathers`);
    assert.is(gate.answered(2, 0, 0), false, `gathers after ${misses} misses`);
    await sleep(5);
    assert.ok(gate.full(2));
    const atOnce = answersAtOnce(gate, 0);
    if (atOnce === 0) {
      // Counted busy: no miss, and one taken back.
      misses = Math.max(0, misses - 1);
      continue;
    }
    misses = Math.min(misses + 1, missesAtMax);
    assert.is(atOnce, Math.min(MAX_SKIP, 2 ** (misses - 1)), `answers at once after ${misses} misses`);
    if (atOnce === MAX_SKIP) atMax++;
  }
});

test('on a loop that never waited idle, a gather slower than a commit or timed out is no miss', async () => {
  // 100 devices on one core come back more slowly than a commit, but the thread read them all along.
  const busy = busyLoop();
  try {
    const gate = new BatchGate(() => undefined, 5000);
    assert.is(gate.answered(2, 0, 0.001), false, 'gathers');
    await sleep(10);
    assert.ok(gate.full(2), 'filled after 10 ms, commits take 1 µs');
    assert.is(gate.answered(2, 0, 0.001), false, 'not a miss: gathers again');
    gate.cancel();
    const timing = new BatchGate(() => undefined, 2);
    assert.is(timing.answered(2, 0, 1000), false);
    while (timing.gathering) await sleep(1);
    assert.is(timing.stats.timedOut, 1);
    assert.is(answersAtOnce(timing), 0, 'timed out on a busy loop: not a miss');
  } finally {
    busy.stop();
  }
  // The same gather on a loop that waited idle is a miss.
  const idle = new BatchGate(() => undefined, 5000);
  assert.is(idle.answered(2, 0, 0.001), false);
  await sleep(10);
  assert.ok(idle.full(2));
  assert.is(answersAtOnce(idle, 0.001), 1, 'slower than a commit on an idle loop: a miss');
});

test.run();
