/**
 * A serial (type 3) output in the output worker, over a real pty pair (socat): the worker runs the output, the main
 * thread's serial port layer owns the line and relays it (worker/relayed-link.ts, serial-link-host.ts). Events go out
 * in journal order, one line per ACK; the port is a component of the main thread's registry; an unplugged line is
 * waited for and the events journaled meanwhile follow; stop() closes the port.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutputWorkerHost } from '../../src/outputs/index.js';
import { waitFor } from '../helpers/net.js';
import { PtyPair } from '../helpers/pty-pair.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';
import { startWriterStore, type WriterStoreFixture } from '../store/helpers/writer-fixture.js';
import { FAST, cidEvent, outputSettings } from './helpers/output-fixture.js';
import { SerialAutomation, testSerialLines } from './helpers/serial-far-end.js';

const line = (zone: string): string => `5011 181234E13001${zone}`;

let fx: WriterStoreFixture;
let pty: PtyPair;
let automation: SerialAutomation;
let host: OutputWorkerHost;
const wake = new Set<() => void>();

async function journal(zones: string[]): Promise<number[]> {
  const refs = await fx.store.write.events.append(zones.map((zoneNo) => sampleEvent(cidEvent({ zoneNo }))));
  for (const listener of wake) listener();
  return refs.map((r) => r.id);
}

test.before.each(async () => {
  fx = await startWriterStore();
  pty = new PtyPair();
  await pty.start();
  automation = new SerialAutomation();
  await automation.open(pty.b);
  host = new OutputWorkerHost({
    dbPath: fx.path,
    writer: fx.writer,
    outputs: [outputSettings({ id: 7, type: 3, identificator: pty.a })],
    health: fx.health,
    logger: fx.logger,
    serialLines: testSerialLines(fx),
    onEventStored: (listener) => {
      wake.add(listener);
      return () => wake.delete(listener);
    },
    timings: FAST,
  });
});

test.after.each(async () => {
  await host.stop();
  await automation.close();
  await pty.close();
  await fx.cleanup();
});

test('the worker runs the output, the main thread the line: events in journal order, one line per ACK', async () => {
  await host.start();
  await waitFor(() => fx.health.get('out:7')?.state === 'ok', 3000);
  assert.is(fx.health.get(`serial:${pty.a}`)?.state, 'ok', "the port is the main thread's component");
  const ids = await journal(['001', '002', '003']);
  await waitFor(() => fx.store.cursors.get(7) === ids[2], 3000);
  assert.equal(automation.events(), [line('001'), line('002'), line('003')]);
  await waitFor(() => fx.health.get('out:7')?.metrics.delivered === 3, 2000);
  await host.stop();
  assert.is(fx.health.get(`serial:${pty.a}`), undefined, 'stop() closes the line');
  assert.is(fx.health.get('out:7'), undefined);
});

test('unplugged: the output is degraded, and the events journaled meanwhile go out once the line is back', async () => {
  await host.start();
  await journal(['001']);
  await waitFor(() => automation.events().length === 1, 3000);
  // Every report is kept: after 'disconnected' a reconnect attempt may report its own failure first.
  const details: string[] = [];
  const unsubscribe = fx.health.onChange((next) => {
    if (next.name === 'out:7' && next.state === 'degraded') details.push(next.detail ?? '');
  });
  await automation.close();
  await pty.stop();
  await waitFor(() => details.some((d) => d.startsWith('disconnected: ')), 10_000).finally(unsubscribe);
  assert.is(fx.health.get('out:7')?.state, 'degraded');
  const ids = await journal(['002', '003']);
  await pty.start();
  await automation.open(pty.b);
  await waitFor(() => fx.store.cursors.get(7) === ids[1], 5000);
  assert.equal(automation.events().slice(-2), [line('002'), line('003')]);
  await waitFor(() => fx.health.get('out:7')?.state === 'ok', 2000);
});

test.run();
