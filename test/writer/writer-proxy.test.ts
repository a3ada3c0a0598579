/**
 * The journal writer in its own thread, over a real SQLite file: pipelined group commit, what
 * the main thread learns after COMMIT, a thread that dies with a batch in flight, and stop.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedBus } from '../../src/core/bus.js';
import { HealthRegistry } from '../../src/core/health.js';
import { createLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import type { IngestEvents, LinkedDevice } from '../../src/ingest/types.js';
import type { JournalWriter, WireBatch, WireResult } from '../../src/writer/wire.js';
import { SIGHTINGS_FLUSHED_KEY } from '../../src/writer/seen-log.js';
import { WriterProxy } from '../../src/writer/writer-proxy.js';
import { openDatabase } from '../../src/store/database.js';
import { Store } from '../../src/store/store.js';
import { sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { T0, frame, hello, sessionLog } from '../ingest/helpers/items.js';

interface Rig {
  store: Store;
  writer: WriterProxy;
  ingest: EventIngest;
  bus: TypedBus<IngestEvents>;
  health: HealthRegistry;
  logs: string[];
  path: string;
  close(): Promise<void>;
}

async function rig(options: { script?: URL; seenPersistMs?: number } = {}): Promise<Rig> {
  const dir = tempDir('vigil-writer-');
  const path = join(dir.path, 'vigil.db');
  const logs: string[] = [];
  const logger = createLogger('t', (l) => logs.push(l), 'debug');
  const health = new HealthRegistry();
  const store = new Store(path, logger, health);
  await store.start();
  const writer = new WriterProxy({ path, logger, ...options });
  const bus = new TypedBus<IngestEvents>(logger);
  const ingest = new EventIngest({ writer, logger, bus, health, sessionLogCount: () => 5 });
  store.onStop(() => ingest.close());
  return {
    store,
    writer,
    ingest,
    bus,
    health,
    logs,
    path,
    async close() {
      await store.stop();
      dir.remove();
    },
  };
}

test('a batch is committed by the writer thread: ids, objects, sessions and bus events come back to this thread', async () => {
  const r = await rig();
  try {
    const stored: Array<[number, string, number | null]> = [];
    const registered: string[] = [];
    r.bus.on('event-stored', ({ id, event }) => stored.push([id, event.account, event.objectId ?? null]));
    r.bus.on('object-registered', ({ object }) => registered.push(object.account));
    const log = sessionLog();
    const [a, b] = await Promise.all([
      r.ingest.submit([frame('W001', { session: log })]),
      r.ingest.submit([frame('W002', { receivedAt: T0 + 5 })]),
    ]);
    assert.is(r.ingest.stats.flushes, 1);
    const w1 = r.store.objects.findByAccount('W001', 1)[0]!;
    const w2 = r.store.objects.findByAccount('W002', 1)[0]!;
    assert.equal([a![0]!.objectId, a![0]!.eventIds, b![0]!.objectId, b![0]!.eventIds], [w1.id, [1], w2.id, [2]]);
    assert.equal(stored, [
      [1, 'W001', w1.id],
      [2, 'W002', w2.id],
    ]);
    assert.equal(registered, ['W001', 'W002']);
    assert.equal([log.id, log.objectId, log.events], [1, w1.id, 1]);
    const row = r.store.events.get(2)!;
    assert.equal(
      [row.objectId, row.receivedAt, row.code, Buffer.from(row.raw).toString()],
      [w2.id, T0 + 5, 'BA', 'frame of W002'],
    );
    assert.is(r.writer.starts, 1);
  } finally {
    await r.close();
  }
});

test('a HELLO comes back with its object; a device that adopts its account is told after COMMIT', async () => {
  const r = await rig();
  try {
    const [h] = await r.ingest.submit([hello('00C0FFEE01')]);
    assert.equal([h!.object!.uid, h!.object!.account], ['00C0FFEE01', '']);
    const device: LinkedDevice = { objectId: h!.objectId!, uid: '00C0FFEE01', account: '' };
    const pending = r.ingest.submit([frame('A900', { device }), frame('A900', { device, receivedAt: T0 + 1 })]);
    assert.is(device.account, '', 'not before the commit');
    const [one, two] = await pending;
    assert.equal([one!.objectId, two!.objectId, device.account], [device.objectId, device.objectId, 'A900']);
    assert.is(r.store.objects.get(device.objectId)!.account, 'A900');
  } finally {
    await r.close();
  }
});

test('while one batch commits the next accumulates: at most one in flight, everything queued meanwhile leaves together', async () => {
  const r = await rig();
  try {
    const batches: number[] = [];
    let inFlight = 0;
    let most = 0;
    const real = r.writer;
    const gated: JournalWriter = {
      async write(batch: WireBatch): Promise<WireResult> {
        batches.push(batch.ops.length);
        most = Math.max(most, ++inFlight);
        try {
          await new Promise((resolve) => setTimeout(resolve, 30));
          return await real.write(batch);
        } finally {
          inFlight--;
        }
      },
      close: () => real.close(),
      ping: () => real.ping(),
      liveness: () => real.liveness(),
    };
    const ingest = new EventIngest({ writer: gated, logger: createLogger('t', () => undefined) });
    const first = ingest.submit([frame('P000')]);
    await new Promise((resolve) => setImmediate(resolve));
    const rest: Array<Promise<unknown>> = [];
    for (let turn = 0; turn < 5; turn++) {
      rest.push(ingest.submit([frame(`P00${turn + 1}`), frame(`P10${turn + 1}`)]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([first, ...rest]);
    assert.equal([batches, most], [[1, 10], 1]);
  } finally {
    await r.close();
  }
});

test('a writer thread that dies with a batch in flight: the batch rejects, the store is failed, the next batch restarts it', async () => {
  const r = await rig({ script: new URL('../ingest/helpers/dying-writer.js', import.meta.url) });
  try {
    await r.ingest.submit([frame('D001')]);
    writeFileSync(`${r.path}.die`, '');
    // The marker is read when a thread starts: end the current one cleanly first.
    await r.writer.close();
    const outcome = await r.ingest.submit([frame('D002')]).then(
      () => 'committed',
      (err: Error) => err.message,
    );
    assert.match(outcome, /journal writer thread exited \(code 3\)/);
    assert.is(r.health.get('store')?.state, 'failed');
    const [again] = await r.ingest.submit([frame('D002', { receivedAt: T0 + 1 })]);
    assert.equal(again!.eventIds, [2]);
    assert.is(r.health.get('store')?.state, 'ok');
    assert.is(r.writer.starts, 3);
    assert.ok(r.logs.some((l) => l.includes('journal writer thread exited')));
  } finally {
    await r.close();
  }
});

test('last_seen is written at most once per interval while the bus carries every sighting; stop writes the rest', async () => {
  const r = await rig({ seenPersistMs: 60_000 });
  try {
    const seen: number[] = [];
    r.bus.on('object-seen', ({ at }) => seen.push(at));
    const [first] = await r.ingest.submit([frame('S001')]);
    await r.ingest.submit([frame('S001', { receivedAt: T0 + 2000 })]);
    await r.ingest.submit([frame(null, { account: 'S001', linkTest: true, receivedAt: T0 + 3000 })]);
    const id = first!.objectId!;
    assert.equal(seen, [T0, T0 + 2000, T0 + 3000]);
    const row = r.store.objects.get(id)!;
    assert.equal([row.lastSeen, row.lastPing], [T0 + 3000, T0 + 3000], 'a first ping is written at once');
    await r.ingest.submit([frame('S001', { receivedAt: T0 + 4000 })]);
    assert.is(r.store.objects.get(id)!.lastSeen, T0 + 3000, 'within the interval: not yet');
    const closedFrom = Date.now();
    await r.ingest.close();
    assert.is(r.store.objects.get(id)!.lastSeen, T0 + 4000, 'written when the writer stops');
    assert.ok(
      Number(r.store.meta.get(SIGHTINGS_FLUSHED_KEY)) >= closedFrom,
      'with the mark that every sighting is stored',
    );
  } finally {
    await r.close();
  }
});

test('with no batch to carry it, the writer thread sweeps pending sightings on its own, once per interval, into object_sightings', async () => {
  const interval = 3000;
  const r = await rig({ seenPersistMs: interval });
  try {
    const [first] = await r.ingest.submit([frame('S001')]);
    const id = first!.objectId!;
    await r.ingest.submit([frame(null, { account: 'S001', linkTest: true, receivedAt: T0 + 3000 })]);
    await r.ingest.submit([frame(null, { account: 'S001', linkTest: true, receivedAt: T0 + 5000 })]);
    const stored = () => [r.store.objects.get(id)!.lastSeen, r.store.objects.get(id)!.lastPing];
    assert.equal(stored(), [T0 + 3000, T0 + 3000], 'a first ping at once, the next one pending');
    // No other batch: the thread's timer writes it within one interval of the thread's start.
    await waitFor(() => stored()[0] === T0 + 5000, 2 * interval);
    const sweptAt = performance.now();
    assert.equal(stored(), [T0 + 5000, T0 + 5000]);
    await r.ingest.submit([frame(null, { account: 'S001', linkTest: true, receivedAt: T0 + 7000 })]);
    await sleep(interval / 3);
    if (performance.now() - sweptAt < interval)
      assert.equal(stored(), [T0 + 5000, T0 + 5000], 'not before one interval after the last sweep');
    await waitFor(() => stored()[0] === T0 + 7000, 2 * interval);
    assert.ok(performance.now() - sweptAt >= interval - 50, 'one interval after the last sweep');
    const raw = openDatabase(r.path, { readonly: true });
    try {
      assert.equal(raw.prepare('SELECT last_seen, last_ping FROM object_sightings WHERE object_id = ?').get(id), {
        last_seen: T0 + 7000,
        last_ping: T0 + 7000,
      });
    } finally {
      raw.close();
    }
  } finally {
    await r.close();
  }
});

test('stop drains: submits queued when the store stops are committed before the thread ends', async () => {
  const r = await rig();
  const pending = Promise.all(
    Array.from({ length: 50 }, (_, i) => r.ingest.submit([frame(`Q${String(i).padStart(3, '0')}`)])),
  );
  await r.store.stop();
  const results = await pending;
  assert.is(results.length, 50);
  await r.store.start();
  assert.is(r.store.events.maxId(), 50);
  await r.close();
});

test.run();
