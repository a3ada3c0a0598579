/**
 * Outputs in their worker thread: events journaled by the main thread's store reach the peer through the worker's
 * own SQLite connection; health, failed/restored notices and logs come back to the main thread; stop() persists
 * the cursor and clears the registry; a worker that cannot open the store reports every output failed.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutputWorkerHost } from '../../src/outputs/index.js';
import { waitFor } from '../helpers/net.js';
import { Mlr2Peer } from './helpers/mlr2-peer.js';
import { FAST, cidEvent, outputSettings, recordOutputStates } from './helpers/output-fixture.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';
import { startWriterStore, type WriterStoreFixture } from '../store/helpers/writer-fixture.js';

let fx: WriterStoreFixture;
let peer: Mlr2Peer;

test.before.each(async () => {
  fx = await startWriterStore();
  peer = new Mlr2Peer();
  await peer.listen();
});

test.after.each(async () => {
  await peer.close();
  await fx.cleanup();
});

test('the worker delivers what the main thread journals and relays health, state changes and logs', async () => {
  const listeners = new Set<() => void>();
  const states: string[] = [];
  recordOutputStates(fx.health, (id, state) => states.push(`${id}:${state}`));
  const host = new OutputWorkerHost({
    dbPath: fx.path,
    writer: fx.writer,
    outputs: [
      outputSettings({ id: 5, identificator: `127.0.0.1:${peer.port}` }),
      outputSettings({ id: 6, enabled: false }),
    ],
    health: fx.health,
    logger: fx.logger,
    onEventStored: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    timings: FAST,
  });
  try {
    await host.start();
    await waitFor(() => fx.health.get('out:5')?.state === 'ok', 3000);
    assert.is(fx.health.get('out:6'), undefined, 'a disabled output does not run');
    const refs = await fx.store.write.events.append([
      sampleEvent(cidEvent({ zoneNo: '001' })),
      sampleEvent(cidEvent({ zoneNo: '002' })),
    ]);
    for (const listener of listeners) listener();
    await peer.waitForEvents(2);
    assert.equal(peer.events(), ['5011 181234E13001001', '5011 181234E13001002']);
    await waitFor(() => fx.health.get('out:5')?.metrics.delivered === 2, 2000);

    peer.policy = () => 'silent';
    await fx.store.write.events.append([sampleEvent(cidEvent({ zoneNo: '003' }))]);
    for (const listener of listeners) listener();
    await waitFor(() => states.length === 1, 3000);
    assert.equal(states, ['5:failed']);
    assert.is(fx.health.get('out:5')?.state, 'failed');
    assert.ok(
      fx.logs.some((l) => / ERROR store:out:5 output failed: only supervision messages/.test(l)),
      fx.logs.slice(-5).join('\n'),
    );
    peer.policy = () => 'ack';
    await waitFor(() => states.length === 2, 3000);
    assert.equal(states, ['5:failed', '5:restored']);
    await peer.waitForEvents(7);

    await host.stop();
    assert.is(fx.health.get('out:5'), undefined);
    assert.is(fx.store.cursors.get(5), refs[1]!.id + 1, 'the cursor was persisted by the worker at stop');
  } finally {
    await host.stop();
  }
});

test('a worker that cannot open the store reports every output failed and keeps retrying until stopped', async () => {
  const host = new OutputWorkerHost({
    dbPath: join(fx.path, 'not-a-dir', 'vigil.db'),
    writer: fx.writer,
    outputs: [outputSettings({ id: 1 }), outputSettings({ id: 2 })],
    health: fx.health,
    logger: fx.logger,
    timings: FAST,
  });
  try {
    let error = '';
    await host.start().catch((err: Error) => (error = err.message));
    assert.match(error, /output worker cannot start: cannot open database/);
    await waitFor(() => fx.health.get('out:2')?.state === 'failed', 3000);
    assert.match(fx.health.get('out:1')!.detail ?? '', /output worker exited/);
  } finally {
    await host.stop();
  }
  assert.is(fx.health.get('out:1'), undefined);
});

test.run();
