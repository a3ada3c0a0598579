/**
 * Two connections appending to one journal file at the same time, each from its own thread, with
 * one of them also deleting the newest rows as it goes (docs/store.md "Event ids"). The id of a
 * batch is read inside its BEGIN IMMEDIATE transaction, so whichever connection takes the write
 * lock second sees the first one's rows and its high-water mark: no id may be handed out twice, be
 * skipped, or come back after a delete. Real SQLite file, real worker threads, bounded loops.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrations.js';
import { tempDir } from '../helpers/temp-dir.js';

const BATCHES_PER_WRITER = 150;
const MAX_BATCH = 20;
const WORKER_TIMEOUT_MS = 60_000;

interface WriterReport {
  readonly ids: number[];
  readonly deleted: number[];
}

/**
 * The writer thread's body (eval worker, CommonJS): it imports the compiled store modules by URL,
 * appends BATCHES_PER_WRITER batches of 1..MAX_BATCH rows, and when `deleteEvery` > 0 deletes the
 * newest stored row after every such batch. Rows name their writer in `account`.
 */
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { openDatabase } = await import(workerData.databaseUrl);
  const { EventJournal } = await import(workerData.journalUrl);
  const { toInsertParams } = await import(workerData.rowsUrl);
  const { sampleEvent } = await import(workerData.fixtureUrl);
  const db = openDatabase(workerData.path);
  const journal = new EventJournal(db);
  // Both threads start together, and each pauses 0-1 ms between batches, so the write lock
  // changes hands throughout instead of one writer finishing while the other's busy handler waits.
  const shared = new Int32Array(workerData.barrier);
  Atomics.add(shared, 0, 1);
  while (Atomics.load(shared, 0) < 2) Atomics.wait(shared, 1, 0, 1);
  const ids = [];
  const deleted = [];
  let seed = workerData.seed;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % workerData.maxBatch + 1;
  for (let b = 0; b < workerData.batches; b++) {
    const rows = Array.from({ length: next() }, (_, i) => toInsertParams(sampleEvent({ account: workerData.name + '-' + b + '-' + i })));
    ids.push(...journal.appendRows(rows));
    Atomics.wait(shared, 1, 0, next() % 2);
    if (workerData.deleteEvery > 0 && b % workerData.deleteEvery === 0) {
      const top = db.prepare('SELECT MAX(id) AS id FROM events').get().id;
      if (top !== null) { db.prepare('DELETE FROM events WHERE id = ?').run(top); deleted.push(top); }
    }
  }
  db.close();
  parentPort.postMessage({ ids, deleted });
})().catch((err) => { throw err; });
`;

function runWriter(
  path: string,
  barrier: SharedArrayBuffer,
  name: string,
  seed: number,
  deleteEvery: number,
): Promise<WriterReport> {
  const url = (relative: string): string => new URL(relative, import.meta.url).href;
  const worker = new Worker(WRITER_SOURCE, {
    eval: true,
    workerData: {
      path,
      barrier,
      name,
      seed,
      deleteEvery,
      batches: BATCHES_PER_WRITER,
      maxBatch: MAX_BATCH,
      databaseUrl: url('../../src/store/database.js'),
      journalUrl: url('../../src/store/event-journal.js'),
      rowsUrl: url('../../src/store/journal-columns.js'),
      fixtureUrl: url('./helpers/store-fixture.js'),
    },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`writer ${name} did not finish within ${WORKER_TIMEOUT_MS} ms`));
    }, WORKER_TIMEOUT_MS);
    worker.once('message', (report: WriterReport) => {
      clearTimeout(timer);
      resolve(report);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

test('two connections appending at once, one deleting the newest row as it goes: every id handed out once, none skipped, none reused', async () => {
  const dir = tempDir();
  const path = join(dir.path, 'writers.db');
  try {
    const setup = openDatabase(path);
    migrate(setup, silentLogger);
    setup.close();

    const barrier = new SharedArrayBuffer(8);
    const [a, b] = await Promise.all([runWriter(path, barrier, 'a', 7, 5), runWriter(path, barrier, 'b', 11, 0)]);

    const handedOut = [...a.ids, ...b.ids];
    assert.is(new Set(handedOut).size, handedOut.length, 'no id returned to both writers, or twice to one');
    const sorted = [...handedOut].sort((x, y) => x - y);
    assert.equal(
      sorted,
      Array.from({ length: sorted.length }, (_, i) => i + 1),
      'ids 1..N with no gap (no batch rolled back)',
    );
    for (const report of [a, b]) {
      for (let i = 1; i < report.ids.length; i++)
        assert.ok(report.ids[i]! > report.ids[i - 1]!, 'each writer sees its ids rise');
    }
    const owner = new Map<number, string>();
    for (const id of a.ids) owner.set(id, 'a');
    for (const id of b.ids) owner.set(id, 'b');
    let handovers = 0;
    for (let i = 1; i < sorted.length; i++) if (owner.get(sorted[i]!) !== owner.get(sorted[i - 1]!)) handovers++;
    assert.ok(handovers >= 10, `the writers took turns ${handovers} times: too few for a race`);
    // A deleted id is always the newest stored at that moment; the other writer's later batches start above it.
    assert.ok(a.deleted.length >= BATCHES_PER_WRITER / 5 - 1, `writer a deleted ${a.deleted.length} rows`);

    const check = openDatabase(path);
    try {
      const stored = check.prepare('SELECT id, account FROM events ORDER BY id').all() as {
        id: number;
        account: string;
      }[];
      const gone = new Set(a.deleted);
      assert.equal(
        stored.map((r) => r.id),
        sorted.filter((id) => !gone.has(id)),
        'the table holds exactly the ids handed out minus those deleted',
      );
      for (const row of stored)
        assert.is(
          row.account.split('-')[0],
          owner.get(row.id),
          `row ${row.id} belongs to the writer its id was returned to`,
        );
    } finally {
      check.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
