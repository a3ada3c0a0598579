/**
 * Clients refused by a TCP server output's allow-list are journaled as `output_client_refused`: through the output
 * worker to the main thread's recorder into the real journal, always (even with no internal_events entry), and
 * rate-limited (one per output and host per minute, at most MAX_EVENTS_PER_MINUTE in all).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { InternalEventRecorder } from '../../src/internal-events/recorder.js';
import { ClientRefusals, MAX_EVENTS_PER_MINUTE } from '../../src/internal-events/client-refusals.js';
import { OutputWorkerHost } from '../../src/outputs/index.js';
import { freePort, waitFor } from '../helpers/net.js';
import { AutomationClient } from '../outputs/helpers/automation-client.js';
import { FAST, outputSettings } from '../outputs/helpers/output-fixture.js';
import { startWriterStore } from '../store/helpers/writer-fixture.js';

function setup() {
  const clock = new ManualClock(1_000_000);
  const raised: string[] = [];
  const refusals = new ClientRefusals({ clock, logger: silentLogger });
  refusals.journalTo(async (type, o) => {
    raised.push(`${type}: ${o?.detail}`);
    return 1;
  });
  return { clock, raised, refusals };
}

test('one event per output and host per minute; the next one says how many it stands for', () => {
  const { clock, raised, refusals } = setup();
  for (let i = 0; i < 3; i++) refusals.report({ output: 4, remote: `192.0.2.9:${4000 + i}` });
  refusals.report({ output: 5, remote: '192.0.2.9:4000' });
  assert.equal(raised, [
    'output_client_refused: output 4: 192.0.2.9:4000 is not on the allow-list',
    'output_client_refused: output 5: 192.0.2.9:4000 is not on the allow-list',
  ]);
  clock.advance(60_000);
  refusals.report({ output: 4, remote: '192.0.2.9:5000' });
  assert.is(
    raised[2],
    'output_client_refused: output 4: 192.0.2.9:5000 is not on the allow-list, 2 more since the last event',
  );
});

test('a scan from many addresses journals at most MAX_EVENTS_PER_MINUTE events a minute', () => {
  const { clock, raised, refusals } = setup();
  for (let i = 0; i < 300; i++) refusals.report({ output: 1, remote: `[2001:db8::${i.toString(16)}]:1` });
  assert.is(raised.length, MAX_EVENTS_PER_MINUTE);
  clock.advance(60_000);
  refusals.report({ output: 1, remote: '[2001:db8::ffff]:1' });
  assert.is(raised.length, MAX_EVENTS_PER_MINUTE + 1);
});

test('through the output worker: a client from 127.0.0.2 is refused and journaled without an internal_events entry', async () => {
  const fx = await startWriterStore();
  const refusals = new ClientRefusals({ clock: fx.clock, logger: silentLogger });
  const recorder = new InternalEventRecorder({
    journal: { append: async (batch) => (await fx.store.write.events.append([...batch])).map((r) => r.id) },
    entries: () => [],
    clock: fx.clock,
    logger: silentLogger,
  });
  refusals.journalTo(recorder.raise);
  const port = await freePort();
  const host = new OutputWorkerHost({
    dbPath: fx.path,
    writer: fx.writer,
    outputs: [
      outputSettings({
        id: 7,
        type: 5,
        identificator: `127.0.0.1:${port}`,
        tcp_server: { allowed_clients: ['127.0.0.1'], no_client_failed_s: 60 },
      }),
    ],
    health: fx.health,
    logger: fx.logger,
    onClientRefused: (refusal) => refusals.report(refusal),
    timings: FAST,
  });
  const stranger = new AutomationClient({ protocol: 'MLR2', port, localAddress: '127.0.0.2' });
  try {
    await host.start();
    await waitFor(() => fx.health.get('out:7')?.metrics.listening === `127.0.0.1:${port}`, 3000);
    await stranger.connect();
    await waitFor(() => stranger.closed, 2000);
    await waitFor(() => fx.store.events.readAfter(0, 10).some((e) => e.code === '421'), 3000);
    const rows = fx.store.events.readAfter(0, 10).filter((e) => e.code === '421');
    assert.is(rows.length, 1);
    assert.match(
      rows[0]!.text ?? '',
      /^Output client refused \(output 7: 127\.0\.0\.2:\d+ is not on the allow-list\)$/,
    );
    assert.is(rows[0]!.eventClass, 'internal');
    await waitFor(() => fx.health.get('out:7')?.metrics.refused_clients === 1, 2000);
  } finally {
    stranger.close();
    await host.stop();
    await fx.cleanup();
  }
});

test.run();
