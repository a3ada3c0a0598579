/**
 * Writes are explicit and asynchronous (docs/store.md §One writer): a write command returns a
 * Promise, the caller's event loop keeps turning while the writer works, a failure rejects with the
 * writer's own VigilError code, a writer that does not answer is STORE_FAILURE after the timeout,
 * and a store without a writer thread answers the same commands the same way. Real SQLite files,
 * a real writer thread, real MessagePorts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { WriteClient, writerChannel } from '../../src/writer/command-channel.js';
import { sleep } from '../helpers/net.js';
import { startStore } from '../store/helpers/store-fixture.js';
import { startWriterStore } from '../store/helpers/writer-fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

async function codeOf(write: Promise<unknown>): Promise<string> {
  try {
    await write;
    return 'resolved';
  } catch (err) {
    return isVigilError(err) ? err.code : 'not a VigilError';
  }
}

test('the event loop keeps turning while a write waits for a writer held busy by a lock', async () => {
  const fx = await startWriterStore();
  const other = new BetterSqlite3(fx.path);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    // The writer thread's INSERT now waits in SQLite's busy handler until the lock goes.
    other.exec('BEGIN IMMEDIATE');
    let settled = false;
    const write = fx.store.write.meta.set('held', 'yes').finally(() => (settled = true));
    const sent = ticks;
    await sleep(300);
    assert.ok(ticks - sent >= 5, `timers fired while the write was outstanding (${ticks - sent} ticks)`);
    assert.is(settled, false, 'the write is still outstanding: the writer is held');
    assert.is(fx.store.meta.get('held'), null);
    // Released by this thread's own code, which could not run if the call above blocked the loop.
    other.exec('ROLLBACK');
    await write;
    assert.is(fx.store.meta.get('held'), 'yes', 'awaited, then read: the write is seen');
  } finally {
    clearInterval(timer);
    other.close();
    await fx.cleanup();
  }
});

test("a failed write rejects with the repository's own code, through the thread and through a LocalWriter alike", async () => {
  const threaded = await startWriterStore();
  const local = await startStore();
  try {
    const codes = async (store: typeof local.store): Promise<string[]> => [
      await codeOf(store.write.grants.set(123456, ['device_control'], 'test')),
      await codeOf(store.write.deviceKeys.enrol('00AB12', Buffer.alloc(16))),
      await codeOf(store.write.meta.set('fine', '1')),
    ];
    assert.equal(await codes(threaded.store), ['NOT_FOUND', 'CONFLICT', 'resolved']);
    assert.equal(await codes(local.store), ['NOT_FOUND', 'CONFLICT', 'resolved'], 'the same protocol without a thread');
  } finally {
    await threaded.cleanup();
    await local.cleanup();
  }
});

test('a writer that never answers: STORE_FAILURE after the timeout, timers running meanwhile, the late answer dropped', async () => {
  const { writer, caller } = writerChannel();
  const client = new WriteClient(caller, 150);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    const started = performance.now();
    const code = await codeOf(client.send({ repo: 'meta', method: 'set', args: ['k', 'v'] }));
    const waited = performance.now() - started;
    assert.is(code, 'STORE_FAILURE');
    assert.ok(waited >= 140, `rejected after the timeout (${Math.round(waited)} ms)`);
    assert.ok(ticks >= 5, `timers fired while it waited (${ticks})`);
    assert.is(client.outstanding, 0);
    // The request is still in the writer's port; an answer now belongs to nobody.
    writer.postMessage({ id: 1, ok: true, value: null });
    await sleep(20);
    assert.is(client.outstanding, 0);
  } finally {
    clearInterval(timer);
    client.replace(null);
    writer.close();
  }
});

test('a store without a writer thread answers asynchronously and in order: a write is seen once awaited', async () => {
  const fx = await startStore();
  try {
    const first = fx.store.write.meta.set('order', '1');
    const second = fx.store.write.meta.set('order', '2');
    assert.is(fx.store.meta.get('order'), null, "nothing ran inside the caller's synchronous code");
    await Promise.all([first, second]);
    assert.is(fx.store.meta.get('order'), '2', 'the commands ran in the order they were sent');
    await fx.store.stop();
    assert.is(await codeOf(fx.store.write.meta.set('order', '3')), 'STORE_UNAVAILABLE', 'a stopped store refuses');
  } finally {
    await fx.cleanup();
  }
});

test('nothing in src/ waits synchronously for another thread (no Atomics.wait, no receiveMessageOnPort)', () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && /Atomics\.wait|receiveMessageOnPort/.test(readFileSync(path, 'utf8')))
        offenders.push(path.slice(root.length));
    }
  };
  walk(join(root, 'src'));
  assert.equal(offenders, []);
});

test.run();
