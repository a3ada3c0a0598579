/**
 * The TCP server output (type 5): the automation software connects to Vigil over real TCP on loopback and ACKs
 * MLR2 lines, Ademco 685 lines and DC-09 frames byte for byte; order and nothing lost across a disconnect; heartbeats while idle;
 * failed / restored supervision by time without a client; one client at a time (the newer replaces the older);
 * the allow-list (a client bound to 127.0.0.2 refused when only 127.0.0.1 is allowed).
 */
import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import type { ClientRefusal } from '../../src/outputs/build-outputs.js';
import type { OutputSettings } from '../../src/settings/schema-outputs.js';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { AutomationClient, type ClientProtocol } from './helpers/automation-client.js';
import { FAST, cidEvent, siaEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';

let fx: OutputFixture;
const clients: AutomationClient[] = [];

test.before.each(async () => {
  fx = await startOutputFixture();
});

test.after.each(async () => {
  for (const c of clients.splice(0)) c.close();
  await fx.cleanup();
});

async function serverOutput(
  protocol: OutputSettings['protocol'],
  options: { allowed?: string[]; timings?: Partial<typeof FAST>; onClientRefused?: (r: ClientRefusal) => void } = {},
) {
  const port = await freePort();
  const out = fx.output(
    {
      type: 5,
      protocol,
      identificator: `127.0.0.1:${port}`,
      receiver_number: protocol === 'SIA-DC09' ? 0x12 : 1,
      line_number: protocol === 'SIA-DC09' ? 3 : 1,
      tcp_server: { allowed_clients: options.allowed ?? [], no_client_failed_s: 60 },
      ...(protocol === 'SIA-DC09'
        ? {
            sia_dc09: {
              encryption_enabled: false,
              encryption_key: '',
              link_test_interval_s: 0,
              ack_timeout_ms: 5000,
              retries: 3,
            },
          }
        : {}),
    },
    {
      timings: { ...FAST, ...options.timings },
      ...(options.onClientRefused ? { onClientRefused: options.onClientRefused } : {}),
    },
  );
  await out.start();
  await waitFor(() => fx.health.get('out:1')?.metrics.listening === `127.0.0.1:${port}`, 2000);
  return { out, port };
}

async function client(protocol: ClientProtocol, port: number, localAddress?: string): Promise<AutomationClient> {
  const c = new AutomationClient({
    protocol,
    port,
    now: () => fx.clock.now(),
    ...(localAddress ? { localAddress } : {}),
  });
  clients.push(c);
  await c.connect();
  return c;
}

test('MLR2: the automation client connects, gets the lines byte for byte in journal order and ACKs them', async () => {
  const { port } = await serverOutput('MLR2');
  assert.is(fx.health.get('out:1')?.state, 'degraded', 'listening, no client yet');
  const c = await client('MLR2', port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append([cidEvent(), siaEvent({ code: 'BA', zoneNo: '3' }), cidEvent({ qualifier: 'R' })]);
  await c.waitForMessages(3);
  assert.equal(c.texts(), ['5011 181234E13001015', '3011      1234BA0003', '5011 181234R13001015']);
  await waitFor(() => fx.store.cursors.get(1) === ids[2], 2000);
  await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 3, 2000);
  const metrics = fx.health.get('out:1')!.metrics;
  assert.is(metrics.connected, true);
  assert.match(String(metrics.client), /^127\.0\.0\.1:\d+$/);
  assert.is(metrics.refused_clients, 0);
});

test('Ademco 685: the automation client gets the 685 lines byte for byte and ACKs each with 0x06', async () => {
  const { port } = await serverOutput('ADEMCO-685');
  const c = await client('ADEMCO-685', port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append([cidEvent(), cidEvent({ qualifier: 'R', eventClass: 'restore' })]);
  await c.waitForMessages(2);
  // docs/outputs.md §Ademco 685: RG, account, 18, QXYZ, GG, C/U + number, a space before the CR.
  assert.equal(c.texts(), ['11 1234 18 E130 01 C015 ', '11 1234 18 R130 01 C015 ']);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 2000);
  assert.is(fx.health.get('out:1')?.metrics.protocol, 'ADEMCO-685');
});

test('SIA-DC09: frames byte for byte, ACKed by the client with the receiver codec, sequence 0001, 0002', async () => {
  const { port } = await serverOutput('SIA-DC09');
  const c = await client('SIA-DC09', port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append([cidEvent(), siaEvent({ groupNo: '1', code: 'BA', zoneNo: '03' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  const now = fx.clock.now();
  const frame = (token: 'ADM-CID' | 'SIA-DCS', sequence: number, data: string): string =>
    buildMessage({
      token,
      sequence,
      receiver: 0x12,
      line: 3,
      account: '1234',
      data,
      timestamp: now,
      key: null,
    }).toString('latin1');
  assert.equal(c.texts(), [frame('ADM-CID', 1, '#1234|1130 01 015'), frame('SIA-DCS', 2, '#1234|Nri1/BA03')]);
  assert.equal(
    c.replies.map((r) => r.toString('latin1').slice(9, 26)),
    ['"ACK"0001R12L3#12', '"ACK"0002R12L3#12'],
  );
});

test('order and nothing lost across a disconnect: the next client resumes at the first unacknowledged event', async () => {
  const { port } = await serverOutput('MLR2');
  const first = await client('MLR2', port);
  // ACKs three lines, then disconnects on receipt of the fourth without answering it.
  first.policy = (_m, i) => (i < 3 ? 'ack' : 'close');
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append(
    Array.from({ length: 8 }, (_, i) => cidEvent({ zoneNo: String(i + 1).padStart(3, '0') })),
  );
  await waitFor(() => first.closed, 3000);
  await waitFor(() => fx.health.get('out:1')?.state === 'degraded', 2000);
  assert.is(fx.store.cursors.get(1) <= ids[2]!, true);
  const second = await client('MLR2', port);
  await waitFor(() => fx.store.cursors.get(1) === ids[7], 3000);
  const zones = (c: AutomationClient) => c.texts().map((t) => t.slice(-3));
  assert.equal(zones(first), ['001', '002', '003', '004']);
  assert.equal(zones(second), ['004', '005', '006', '007', '008'], 'the unanswered line first, then the rest');
});

test('heartbeats go out while idle and are ACKed by the client', async () => {
  const { port } = await serverOutput('MLR2', { timings: { supervisionIntervalMs: 100 } });
  const c = await client('MLR2', port);
  await c.waitForMessages(3, 3000);
  assert.ok(c.texts().every((t) => t === '1011           @    '));
  assert.is(fx.health.get('out:1')?.state, 'ok');
});

test('no client for the configured time fails the output; a client that connects and ACKs restores it', async () => {
  const { port } = await serverOutput('MLR2', { timings: { noClientFailMs: 300 } });
  await waitFor(() => fx.health.get('out:1')?.state === 'failed', 3000);
  assert.match(fx.health.get('out:1')!.detail ?? '', /no automation client connected/);
  assert.equal(fx.states, [{ output: 1, state: 'failed' }]);
  const ids = await fx.append([cidEvent()]);
  const c = await client('MLR2', port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 3000);
  assert.equal(fx.states, [
    { output: 1, state: 'failed' },
    { output: 1, state: 'restored' },
  ]);
  await waitFor(() => fx.store.cursors.get(1) === ids[0], 3000);
  assert.equal(c.texts(), ['1011           @    ', '5011 181234E13001015'], 'restored by an ACKed heartbeat');
});

test('a client that drops away while an event waits fails the output only after the no-client time', async () => {
  // Retries would be spent after 4 ACK timeouts (1.2 s); the no-client time is longer.
  const { port } = await serverOutput('MLR2', { timings: { noClientFailMs: 2500 } });
  const c = await client('MLR2', port);
  c.policy = () => 'close';
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  await fx.append([cidEvent()]);
  await waitFor(() => c.closed, 2000);
  await sleep(1600);
  assert.is(fx.health.get('out:1')?.state, 'degraded', 'not failed by retries while nobody is connected');
  assert.is(fx.health.get('out:1')?.metrics.retries, 0);
  await waitFor(() => fx.health.get('out:1')?.state === 'failed', 3000);
  assert.match(fx.health.get('out:1')!.detail ?? '', /no automation client connected for 3 s/);
});

test('a port held by another program fails the output; it binds once the port is free and a client restores it', async () => {
  const port = await freePort();
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  const out = fx.output(
    {
      type: 5,
      protocol: 'MLR2',
      identificator: `127.0.0.1:${port}`,
      tcp_server: { allowed_clients: [], no_client_failed_s: 60 },
    },
    { timings: FAST },
  );
  await out.start();
  await waitFor(() => fx.health.get('out:1')?.state === 'failed', 2000);
  assert.match(fx.health.get('out:1')!.detail ?? '', /EADDRINUSE/);
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  await waitFor(() => fx.health.get('out:1')?.metrics.listening === `127.0.0.1:${port}`, 3000);
  await client('MLR2', port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 3000);
  assert.equal(fx.states, [
    { output: 1, state: 'failed' },
    { output: 1, state: 'restored' },
  ]);
});

test('one client at a time: a new connection replaces the old one and gets the unanswered line again', async () => {
  const { port } = await serverOutput('MLR2');
  const old = await client('MLR2', port);
  old.policy = () => 'silent';
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append([cidEvent(), cidEvent({ zoneNo: '016' })]);
  await old.waitForMessages(1);
  const fresh = await client('MLR2', port);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  await waitFor(() => old.closed, 2000);
  assert.equal(fresh.texts(), ['5011 181234E13001015', '5011 181234E13001016']);
  assert.match(String(fx.health.get('out:1')?.metrics.client), /^127\.0\.0\.1:\d+$/);
});

test('allow-list: a client from 127.0.0.2 is closed at once, counted and reported; 127.0.0.1 is served', async () => {
  const refusals: ClientRefusal[] = [];
  const { port } = await serverOutput('MLR2', { allowed: ['127.0.0.1'], onClientRefused: (r) => refusals.push(r) });
  const stranger = await client('MLR2', port, '127.0.0.2');
  await waitFor(() => stranger.closed, 2000);
  await fx.append([cidEvent()]);
  await sleep(100);
  assert.equal(stranger.messages, [], 'the stranger never gets a byte');
  assert.is(refusals.length, 1);
  assert.is(refusals[0]!.output, 1);
  assert.match(refusals[0]!.remote, /^127\.0\.0\.2:\d+$/);
  await waitFor(() => fx.health.get('out:1')?.metrics.refused_clients === 1, 2000);
  const friend = await client('MLR2', port, '127.0.0.1');
  await friend.waitForMessages(1);
  assert.equal(friend.texts(), ['5011 181234E13001015']);
});

test('allow-list: an empty list admits loopback only', async () => {
  const refusals: ClientRefusal[] = [];
  const { port } = await serverOutput('MLR2', { onClientRefused: (r) => refusals.push(r) });
  const local = await client('MLR2', port, '127.0.0.2');
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  assert.is(local.closed, false);
  assert.is(refusals.length, 0);
});

test.run();
