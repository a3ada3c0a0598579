/**
 * The JSON server (type 5, protocol "JSON") against a real NDJSON client on loopback: one line per event with the
 * webhook's event object, ACKed by `{"ack":<id>}`; only the ACK moves the cursor; a client that disconnects
 * mid-stream gets the rest from the first unacknowledged event on, without a gap and in order; heartbeat lines
 * while idle are ACKed the same way.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { AutomationClient } from './helpers/automation-client.js';
import { FAST, cidEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';

let fx: OutputFixture;
const clients: AutomationClient[] = [];

test.before.each(async () => {
  fx = await startOutputFixture();
});

test.after.each(async () => {
  for (const c of clients.splice(0)) c.close();
  await fx.cleanup();
});

async function jsonServer(timings: Partial<typeof FAST> = {}): Promise<number> {
  const port = await freePort();
  const out = fx.output(
    { type: 5, protocol: 'JSON', identificator: `127.0.0.1:${port}`, receiver_number: 0, line_number: 0 },
    { timings: { ...FAST, ...timings }, instanceName: 'Site A' },
  );
  await out.start();
  await waitFor(() => fx.health.get('out:1')?.metrics.listening === `127.0.0.1:${port}`, 2000);
  return port;
}

async function client(port: number): Promise<AutomationClient> {
  const c = new AutomationClient({ protocol: 'JSON', port });
  clients.push(c);
  await c.connect();
  return c;
}

test('one NDJSON line per event with the documented schema; the ACK names the event id', async () => {
  const port = await jsonServer();
  const c = await client(port);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const [id] = await fx.append([cidEvent({ receivedAt: Date.UTC(2026, 10, 26, 15, 0, 0, 250), receiverId: 1 })]);
  await waitFor(() => fx.store.cursors.get(1) === id, 3000);
  const [line] = c.json();
  assert.equal(Object.keys(line!), ['type', 'id', 'version', 'gateway', 'event']);
  assert.is(line!.type, 'event');
  assert.is(line!.id, id);
  assert.is(line!.version, 1);
  assert.is(line!.gateway, 'Site A');
  const event = line!.event as Record<string, unknown>;
  assert.equal(Object.keys(event), [
    'id',
    'account',
    'device_account',
    'protocol',
    'event_class',
    'qualifier',
    'code',
    'group',
    'zone',
    'text',
    'receiver',
    'object',
    'remote_address',
    'received_at',
    'event_time',
    'event_time_text',
    'raw_base64',
  ]);
  assert.is(event.id, id);
  assert.is(event.account, '1234');
  assert.is(event.code, '130');
  assert.is(event.zone, '015');
  assert.is(event.qualifier, 'E');
  assert.is(event.received_at, '2026-11-26T15:00:00.250Z');
  assert.is(
    Buffer.from(String(event.raw_base64), 'base64').toString('latin1'),
    '"ADM-CID"0001R1L1#1234[#1234|1130 01 015]',
  );
  assert.equal(c.replies.map(String), [`{"ack":${id}}\n`]);
});

test('without the ACK the cursor does not move: a line written is not a line delivered', async () => {
  const port = await jsonServer();
  const c = await client(port);
  c.policy = () => 'silent';
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const cursor = fx.store.cursors.get(1);
  await fx.append([cidEvent()]);
  await c.waitForMessages(2, 3000);
  assert.is(fx.store.cursors.get(1), cursor);
  assert.is(c.json()[1]!.id, c.json()[0]!.id, 'sent again after the ACK timeout');
});

test('a client that disconnects mid-stream gets the rest without a gap, in order, from a new connection', async () => {
  const port = await jsonServer();
  const first = await client(port);
  first.policy = (_m, i) => (i < 4 ? 'ack' : 'close');
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  const ids = await fx.append(Array.from({ length: 12 }, () => cidEvent()));
  await waitFor(() => first.closed, 3000);
  const second = await client(port);
  await waitFor(() => fx.store.cursors.get(1) === ids[11], 3000);
  const acked = first
    .json()
    .slice(0, 4)
    .map((l) => l.id);
  const rest = second.json().map((l) => l.id);
  assert.equal(acked, ids.slice(0, 4));
  assert.equal(rest, ids.slice(4), 'the line in flight first, then every later event once');
});

test('heartbeat lines while idle carry an id the client ACKs', async () => {
  const port = await jsonServer({ supervisionIntervalMs: 100 });
  const c = await client(port);
  await c.waitForMessages(2, 3000);
  const [hb1, hb2] = c.json();
  assert.is(hb1!.type, 'heartbeat');
  assert.is(hb1!.id, 'hb-1');
  assert.is(hb2!.id, 'hb-2');
  assert.match(String(hb1!.sent_at), /^\d{4}-\d\d-\d\dT/);
  await sleep(50);
  assert.is(fx.health.get('out:1')?.state, 'ok');
  assert.is(fx.health.get('out:1')?.metrics.retries, 0, 'each heartbeat ACKed at the first try');
});

test.run();
