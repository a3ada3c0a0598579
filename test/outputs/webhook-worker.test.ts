/**
 * A webhook output in the output worker thread, as the gateway runs it: events the main thread journals are
 * POSTed by the worker, the body names the gateway (general.instance_name handed through the worker's init),
 * and health comes back to the main thread.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutputWorkerHost } from '../../src/outputs/index.js';
import { waitFor } from '../helpers/net.js';
import { FAST, cidEvent, outputSettings } from './helpers/output-fixture.js';
import { WebhookPeer } from './helpers/webhook-peer.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';
import { startWriterStore } from '../store/helpers/writer-fixture.js';

const SECRET = 'webhook-secret-0123456789';

test('the worker POSTs what the main thread journals, signed, with the instance name as gateway', async () => {
  const fx = await startWriterStore();
  // The worker signs with the system clock.
  const peer = new WebhookPeer({ secret: SECRET });
  await peer.listen();
  const listeners = new Set<() => void>();
  const host = new OutputWorkerHost({
    dbPath: fx.path,
    writer: fx.writer,
    outputs: [
      outputSettings({
        id: 7,
        type: 4,
        protocol: 'JSON',
        identificator: `http://127.0.0.1:${peer.port}/in`,
        webhook: {
          secret: SECRET,
          timeout_ms: 2000,
          batch_size: 1,
          retries: 3,
          retry_min_ms: 100,
          retry_max_ms: 1000,
          ca_file: '',
        },
      }),
    ],
    instanceName: 'Depot North',
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
    await waitFor(() => fx.health.get('out:7')?.state === 'ok', 3000);
    const refs = await fx.store.write.events.append([
      sampleEvent(cidEvent({ zoneNo: '001' })),
      sampleEvent(cidEvent({ zoneNo: '002' })),
    ]);
    for (const listener of listeners) listener();
    await waitFor(() => peer.deliveredIds.length === 2, 5000);
    assert.equal(
      peer.deliveredIds,
      refs.map((r) => r.id),
    );
    assert.equal(
      peer.posts.map((p) => [p.verdict, p.body.gateway]),
      [
        ['ok', 'Depot North'],
        ['ok', 'Depot North'],
      ],
    );
    await waitFor(() => fx.health.get('out:7')?.metrics.delivered === 2, 2000);
    await host.stop();
    assert.is(fx.store.cursors.get(7), refs[1]!.id);
  } finally {
    await host.stop();
    await peer.close();
    await fx.cleanup();
  }
});

test.run();
