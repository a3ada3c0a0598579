/**
 * Type 3 (serial COM) outputs over real ptys (socat): the same outbox, ACK timeout, retries, heartbeat and
 * failed/restored states as over TCP, with automation software at the other end of the line that ACKs, goes silent,
 * or is unplugged.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Service } from '../../src/core/service.js';
import { waitFor } from '../helpers/net.js';
import { PtyPair } from '../helpers/pty-pair.js';
import { HEARTBEAT_LINE as HEARTBEAT } from './helpers/mlr2-peer.js';
import { cidEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';
import { SerialAutomation, testSerialLines } from './helpers/serial-far-end.js';

const line = (zone: string): string => `5011 181234E13001${zone}`;

let fx: OutputFixture;
let pty: PtyPair;
let automation: SerialAutomation;
let out: Service;

test.before.each(async () => {
  fx = await startOutputFixture();
  pty = new PtyPair();
  await pty.start();
  automation = new SerialAutomation();
  await automation.open(pty.b);
  out = fx.output(
    { type: 3, protocol: 'MLR2', identificator: pty.a },
    {
      serial: testSerialLines(fx),
    },
  );
});

test.after.each(async () => {
  await out.stop();
  await automation.close();
  await pty.close();
  await fx.cleanup();
});

test('events go out over the COM line in journal order, one line per ACK', async () => {
  await out.start();
  const ids = await fx.append([cidEvent({ zoneNo: '001' }), cidEvent({ zoneNo: '002' }), cidEvent({ zoneNo: '003' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[2], 3000);
  assert.equal(automation.events(), [line('001'), line('002'), line('003')]);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 1000);
  assert.is(fx.health.get(`serial:${pty.a}`)?.state, 'ok');
  assert.equal(fx.states, []);
});

test('automation that stops ACKing: 1 + 3 transmissions, failed, heartbeats only, then restored and resumed', async () => {
  await out.start();
  automation.answering = false;
  await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.states.length === 1, 4000);
  assert.equal(fx.states, [{ output: 1, state: 'failed' }]);
  assert.equal(automation.events(), [line('001'), line('001'), line('001'), line('001')]);
  assert.is(fx.health.get('out:1')!.state, 'failed');
  await fx.append([cidEvent({ zoneNo: '002' })]);
  const before = automation.lines.length;
  await waitFor(() => automation.lines.length >= before + 2, 2000);
  assert.ok(
    automation.lines.slice(before).every((l) => l === HEARTBEAT),
    'only heartbeats while failed',
  );
  automation.answering = true;
  await waitFor(() => fx.states.length === 2, 3000);
  assert.equal(fx.states[1], { output: 1, state: 'restored' });
  await waitFor(() => automation.events().length === 6, 3000);
  assert.equal(automation.events().slice(4), [line('001'), line('002')]);
});

test('unplugged: the output waits, events journaled meanwhile go out once the line is back', async () => {
  await out.start();
  await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => automation.events().length === 1, 3000);
  await automation.close();
  await pty.stop();
  await waitFor(() => fx.health.get('out:1')?.state === 'degraded', 3000);
  const ids = await fx.append([cidEvent({ zoneNo: '002' }), cidEvent({ zoneNo: '003' })]);
  await pty.start();
  await automation.open(pty.b);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 5000);
  assert.equal(automation.events().slice(-2), [line('002'), line('003')]);
  assert.is(fx.health.get(`serial:${pty.a}`)?.metrics.reopens, 1);
});

test.run();
