/**
 * Journal -> DC-09 forwarding -> a DC-09 receiver (Vigil's own receiver codec) over real TCP and UDP on 127.0.0.1,
 * byte for byte: ADM-CID and SIA-DCS messages, sequence numbers, encryption, NAK clock adoption, NULL link tests,
 * DUH handling, failure and resume.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import type { SiaDc09Settings } from '../../src/settings/schema-outputs.js';
import { waitFor } from '../helpers/net.js';
import { Dc09Peer } from './helpers/dc09-peer.js';
import { FAST, cidEvent, siaEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';

const KEY_TEXT = 'vigil-test-key-1';
const KEY = Buffer.from(KEY_TEXT, 'latin1');
const PAD = (n: number): Buffer => Buffer.alloc(n, 0x41);
const HOUR = 3_600_000;

let fx: OutputFixture;
let peer: Dc09Peer | null = null;

function sia(block: Partial<SiaDc09Settings> = {}): SiaDc09Settings {
  return {
    encryption_enabled: false,
    encryption_key: '',
    link_test_interval_s: 0,
    ack_timeout_ms: 5000,
    retries: 3,
    ...block,
  };
}

async function startPeer(transport: 'tcp' | 'udp', options: { key?: Buffer; skewMs?: number } = {}): Promise<Dc09Peer> {
  peer = new Dc09Peer({
    transport,
    key: options.key ?? null,
    now: () => fx.clock.now() + (options.skewMs ?? 0),
    randomBytes: PAD,
  });
  await peer.listen();
  return peer;
}

function dc09Output(p: Dc09Peer, block: Partial<SiaDc09Settings> = {}, timings = FAST) {
  return fx.output(
    {
      protocol: 'SIA-DC09',
      type: p.transport === 'udp' ? 2 : 1,
      identificator: `127.0.0.1:${p.port}`,
      receiver_number: 0x12,
      line_number: 3,
      oid: 0x1f,
      sia_dc09: sia(block),
    },
    { randomBytes: PAD, timings },
  );
}

function expected(
  token: 'ADM-CID' | 'SIA-DCS' | 'NULL',
  sequence: number,
  account: string,
  data: string,
  timestamp: number,
  key: Buffer | null = null,
): string {
  return buildMessage({
    token,
    sequence,
    receiver: 0x12,
    line: 3,
    account,
    data,
    timestamp,
    key,
    randomBytes: PAD,
  }).toString('latin1');
}

test.before.each(async () => {
  fx = await startOutputFixture();
});

test.after.each(async () => {
  await fx.cleanup();
  await peer?.close();
  peer = null;
});

for (const transport of ['tcp', 'udp'] as const) {
  test(`${transport}: ADM-CID and SIA-DCS messages byte for byte, sequence 0001, 0002, ACKed by the receiver`, async () => {
    const p = await startPeer(transport);
    const out = dc09Output(p);
    await out.start();
    const ids = await fx.append([
      cidEvent(),
      siaEvent({ groupNo: '1', code: 'BA', zoneNo: '03' }),
      cidEvent({ qualifier: 'R', account: '12', zoneNo: '7' }),
    ]);
    await waitFor(() => fx.store.cursors.get(1) === ids[2], 3000);
    const now = fx.clock.now();
    assert.equal(
      p.frames.map((f) => f.raw.toString('latin1')),
      [
        expected('ADM-CID', 1, '1234', '#1234|1130 01 015', now),
        expected('SIA-DCS', 2, '1234', '#1234|Nri1/BA03', now),
        expected('ADM-CID', 3, '012', '#012|3130 01 007', now),
      ],
    );
    assert.equal(
      p.frames.map((f) => f.decision.action),
      ['ack', 'ack', 'ack'],
    );
    assert.equal(p.frames[0]!.decision.events[0]!.code, '130');
    await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 3, 1000);
  });

  test(`${transport}: encrypted forwarding, byte for byte, opened by the receiver and answered with *ACK`, async () => {
    const p = await startPeer(transport, { key: KEY });
    const out = dc09Output(p, { encryption_enabled: true, encryption_key: KEY_TEXT });
    await out.start();
    const ids = await fx.append([cidEvent(), siaEvent()]);
    await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
    const now = fx.clock.now();
    assert.equal(
      p.frames.map((f) => f.raw.toString('latin1')),
      [
        expected('ADM-CID', 1, '1234', '#1234|1130 01 015', now, KEY),
        expected('SIA-DCS', 2, '1234', '#1234|Nri1/BA03', now, KEY),
      ],
    );
    assert.ok(p.frames.every((f) => f.decision.message?.encrypted === true && f.decision.action === 'ack'));
    assert.is(p.frames[1]!.decision.events[0]!.code, 'BA');
    assert.ok(p.frames[0]!.decision.reply!.toString('latin1').includes('"*ACK"0001R12L3#1234['));
  });
}

test('NAK: the output adopts the receiver clock from the NAK, sends again, and stamps later messages with it', async () => {
  const p = await startPeer('tcp', { skewMs: HOUR });
  const out = dc09Output(p);
  await out.start();
  const ids = await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[0], 3000);
  await fx.append([cidEvent({ zoneNo: '002' })]);
  await p.waitForFrames(3);
  const now = fx.clock.now();
  assert.equal(
    p.frames.map((f) => f.decision.action),
    ['nak', 'ack', 'ack'],
  );
  assert.equal(
    p.frames.map((f) => f.raw.toString('latin1')),
    [
      expected('ADM-CID', 1, '1234', '#1234|1130 01 001', now),
      expected('ADM-CID', 1, '1234', '#1234|1130 01 001', now + HOUR),
      expected('ADM-CID', 2, '1234', '#1234|1130 01 002', now + HOUR),
    ],
  );
  await waitFor(() => fx.health.get('out:1')?.metrics.retries === 1, 1000);
});

test('NULL link tests at the interval when idle, under the output oid, and ACKed', async () => {
  const p = await startPeer('tcp');
  const out = dc09Output(p, {}, { ...FAST, supervisionIntervalMs: 60 });
  await out.start();
  await waitFor(() => p.nullFrames().length >= 2, 3000);
  assert.is(p.frames[0]!.raw.toString('latin1'), expected('NULL', 1, '001F', '', fx.clock.now()));
  assert.is(p.frames[1]!.raw.toString('latin1'), expected('NULL', 2, '001F', '', fx.clock.now()));
  assert.ok(p.frames.every((f) => f.decision.action === 'ack' && f.decision.linkTest === true));
  assert.is(fx.health.get('out:1')?.state, 'ok');
});

test('DUH for one event while link tests are ACKed: that event is skipped, the next one delivered', async () => {
  const p = await startPeer('tcp');
  p.policy = (frame) =>
    frame.decision.message?.token !== 'NULL' && frame.decision.events[0]?.zoneNo === '002' ? 'duh' : 'normal';
  const out = dc09Output(p);
  await out.start();
  const ids = await fx.append([cidEvent({ zoneNo: '001' }), cidEvent({ zoneNo: '002' }), cidEvent({ zoneNo: '003' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[2], 3000);
  const kinds = p.frames.map((f) => (f.decision.message?.token === 'NULL' ? 'NULL' : f.decision.events[0]?.zoneNo));
  assert.equal(kinds, ['001', '002', '002', '002', '002', 'NULL', '003']);
  assert.equal(fx.states, []);
  await waitFor(() => fx.health.get('out:1')?.metrics.unsendable === 1, 1000);
  assert.ok(
    fx.logs.some(
      (l) => l.includes('peer refuses the event but acknowledges link tests; skipped') && l.includes(`event=${ids[1]}`),
    ),
  );
});

test('a receiver that refuses everything (wrong key): the output fails, skips nothing, and resumes once it is fixed', async () => {
  const p = await startPeer('tcp', { key: Buffer.from('another-key-16ch', 'latin1') });
  const out = dc09Output(p, { encryption_enabled: true, encryption_key: KEY_TEXT });
  await out.start();
  const ids = await fx.append([cidEvent({ zoneNo: '001' }), cidEvent({ zoneNo: '002' })]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.equal(fx.states, [{ output: 1, state: 'failed' }]);
  assert.is(fx.store.cursors.get(1) < ids[0]!, true);
  assert.is(fx.health.get('out:1')?.metrics.unsendable, 0);
  p.key = KEY;
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  assert.equal(fx.states[1], { output: 1, state: 'restored' });
  const delivered = p.frames.filter((f) => f.decision.action === 'ack' && f.decision.message?.token !== 'NULL');
  assert.equal(
    delivered.map((f) => f.decision.events[0]!.zoneNo),
    ['001', '002'],
  );
});

test('udp: silence fails the output after 1 + retries datagrams; NULL probes restore it and delivery resumes', async () => {
  const p = await startPeer('udp');
  let answering = false;
  p.policy = () => (answering ? 'normal' : 'silent');
  const out = dc09Output(p, { retries: 2 }, { ...FAST, retries: 2 });
  await out.start();
  const ids = await fx.append([siaEvent({ zoneNo: '1' }), siaEvent({ zoneNo: '2' })]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.is(p.eventFrames().length, 3);
  await waitFor(() => p.nullFrames().length >= 2, 2000);
  assert.is(p.eventFrames().length, 3, 'only NULL probes while failed');
  answering = true;
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  assert.equal(
    fx.states.map((s) => s.state),
    ['failed', 'restored'],
  );
  const zones = p.eventFrames().map((f) => f.decision.events[0]!.zoneNo);
  assert.equal(zones, ['1', '1', '1', '1', '2']);
  // A retransmission keeps its sequence number so the receiver can spot the duplicate; after the failed state the
  // event starts a new exchange with the next number.
  const sequences = p.eventFrames().map((f) => f.decision.message!.sequence);
  assert.equal(sequences.slice(0, 3), ['0001', '0001', '0001']);
  assert.ok(!sequences.slice(3).includes('0001'));
});

test('sequence numbers continue after a restart of the output (stored with the cursor), and counters say since when', async () => {
  const p = await startPeer('tcp');
  const first = dc09Output(p);
  await first.start();
  const ids = await fx.append([cidEvent(), cidEvent({ zoneNo: '016' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  const started = fx.clock.now();
  assert.is(fx.health.get('out:1')?.metrics.counters_since, started);
  await first.stop();
  assert.is(fx.store.cursors.sequence(1), 2, 'the last ACKed sequence is stored with the cursor');

  fx.clock.advance(60_000);
  const second = dc09Output(p);
  await second.start();
  const [next] = await fx.append([cidEvent({ zoneNo: '017' })]);
  await waitFor(() => fx.store.cursors.get(1) === next, 3000);
  const now = fx.clock.now();
  assert.is(
    p.frames[2]!.raw.toString('latin1'),
    expected('ADM-CID', 3, '1234', '#1234|1130 01 017', now),
    'continues at 0003, not 0001',
  );
  await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 1, 1000);
  assert.is(fx.health.get('out:1')?.metrics.counters_since, now, 'delivered counts since the restart, and says so');
  await second.stop();
});

test.run();
