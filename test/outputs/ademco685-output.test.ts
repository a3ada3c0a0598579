/**
 * Journal -> Ademco 685 output -> a 685 reader over real TCP on 127.0.0.1, byte for byte: alarm, restore, opening and
 * closing by user, test, a SIA event without a Contact ID code; NAK and silence (resend, failed with OKAY probes
 * only, restored), order and completeness through a reader outage. The 685's own rule is kept (2 transmissions before
 * the computer is in fault: retries 1); the ACK timeout is shortened to 300 ms.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/net.js';
import { outputTimings } from '../../src/outputs/output-timings.js';
import { Ademco685Peer } from './helpers/ademco685-peer.js';
import {
  FAST,
  cidEvent,
  outputSettings,
  siaEvent,
  eachTestWithPeer,
  type OutputFixture,
} from './helpers/output-fixture.js';
import { survivesOutage } from './helpers/outage-scenario.js';

const RULE = { ...FAST, retries: 1 };
const zone = (n: number): string => String(n).padStart(3, '0');
const alarm = (n: number): string => `12 1234 18 E130 01 C${zone(n)} `;

let fx: OutputFixture;
let peer: Ademco685Peer;
eachTestWithPeer(test, Ademco685Peer, (setup) => {
  ({ fx, peer } = setup);
});

function start685(extra: Record<string, unknown> = {}) {
  return fx.output(
    { protocol: 'ADEMCO-685', identificator: `127.0.0.1:${peer.port}`, receiver_number: 1, line_number: 2, ...extra },
    { timings: RULE },
  );
}

test('the 685 timings are the receiver manual figures: ACK within 2 s, 2 transmissions, OKAY after 45 s', () => {
  const t = outputTimings(outputSettings({ protocol: 'ADEMCO-685' }));
  assert.equal([t.ackTimeoutMs, t.retries, t.supervisionIntervalMs], [2000, 1, 45_000]);
});

test('event kinds reach the reader byte for byte, in journal order, and the cursor follows the ACKs', async () => {
  const out = start685();
  await out.start();
  const ids = await fx.append([
    cidEvent(),
    cidEvent({ qualifier: 'R', eventClass: 'restore' }),
    cidEvent({ code: '401', groupNo: '02', zoneNo: '005', eventClass: 'other' }),
    cidEvent({ qualifier: 'R', code: '401', groupNo: '02', zoneNo: '005', eventClass: 'other' }),
    cidEvent({ code: '602', groupNo: '00', zoneNo: '000', eventClass: 'other' }),
    siaEvent({ code: 'FA', groupNo: '3', zoneNo: '0012' }),
    siaEvent({ code: 'LB', groupNo: null, zoneNo: '4' }),
  ]);
  await peer.waitForEvents(7);
  assert.equal(peer.events(), [
    '12 1234 18 E130 01 C015 ',
    '12 1234 18 R130 01 C015 ',
    '12 1234 18 E401 02 U005 ',
    '12 1234 18 R401 02 U005 ',
    '12 1234 18 E602 00 C000 ',
    '12 1234 18 E110 03 C012 ',
    '12 1234 18 E140 00 C004 ',
  ]);
  assert.ok(peer.messages.every((m) => m.kind !== 'malformed'));
  const open = peer.messages[2]!;
  assert.equal(
    [open.account, open.qualifier, open.code, open.partition, open.kindOfNumber, open.number],
    ['1234', 'E', '401', '02', 'U', '005'],
  );
  await waitFor(() => fx.store.cursors.get(1) === ids[6], 2000);
  await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 7, 2000);
  const health = fx.health.get('out:1')!;
  assert.is(health.state, 'ok');
  assert.is(health.metrics.protocol, 'ADEMCO-685', 'the Status view shows the protocol');
  assert.is(health.metrics.unsendable, 0);
  await out.stop();
});

test('an account longer than 4 significant digits is skipped and counted, never cut; the next event goes out', async () => {
  const out = start685();
  await out.start();
  const ids = await fx.append([cidEvent({ account: '123456' }), cidEvent({ zoneNo: '002' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 2000);
  assert.equal(peer.events(), [alarm(2)]);
  await waitFor(() => fx.health.get('out:1')?.metrics.unsendable === 1, 1000);
  await out.stop();
});

test('a NAKed message is sent again at once; two NAKs make the computer fault, as on the 685', async () => {
  peer.policy = (m, copy) => (m.kind === 'okay' || copy >= 2 ? 'ack' : 'nak');
  const out = start685();
  await out.start();
  const [id] = await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.store.cursors.get(1) === id, 2000);
  assert.equal(peer.events(), [alarm(1), alarm(1)]);
  assert.equal(fx.states, []);
  await waitFor(() => fx.health.get('out:1')?.metrics.retries === 1, 1000);
  await out.stop();
});

test('no ACK: 2 transmissions, failed, OKAY probes only, then restored and resumed from the unACKed event', async () => {
  let answering = false;
  peer.policy = () => (answering ? 'ack' : 'silent');
  const out = start685();
  await out.start();
  await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.equal(fx.states, [{ output: 1, state: 'failed' }]);
  assert.equal(peer.events(), [alarm(1), alarm(1)]);
  assert.is(fx.health.get('out:1')?.detail, 'event 1 not acknowledged after 2 transmissions');
  await fx.append([cidEvent({ zoneNo: '002' })]);
  const before = peer.messages.length;
  await waitFor(() => peer.okays() >= 2, 2000, 5);
  assert.ok(
    peer.messages.slice(before).every((m) => m.kind === 'okay'),
    'only OKAY test messages while failed',
  );
  answering = true;
  await waitFor(() => fx.states.length === 2, 3000);
  assert.equal(fx.states[1], { output: 1, state: 'restored' });
  await waitFor(() => peer.distinctEvents().length === 2, 2000);
  assert.equal(peer.distinctEvents(), [alarm(1), alarm(2)]);
  await out.stop();
});

test('a reader outage: events journaled meanwhile arrive afterwards, none lost, none reordered', async () => {
  const out = start685();
  await out.start();
  await survivesOutage(fx, peer, alarm);
  await out.stop();
});

test('a late ACK of an earlier copy is not taken for the ACK of the next message (duplicates, never a loss)', async () => {
  peer.policy = (m, copy) => {
    if (m.text === alarm(1)) return copy === 1 ? { lateAckMs: RULE.ackTimeoutMs * 1.5 } : 'ack';
    if (m.text === alarm(2)) return copy === 1 ? 'silent' : 'ack';
    return 'ack';
  };
  const out = start685();
  await out.start();
  const ids = await fx.append([cidEvent({ zoneNo: '001' }), cidEvent({ zoneNo: '002' }), cidEvent({ zoneNo: '003' })]);
  await waitFor(() => fx.store.cursors.get(1) === ids[2], 3000);
  assert.equal(peer.events(), [alarm(1), alarm(1), alarm(2), alarm(2), alarm(3), alarm(3)]);
  assert.equal(fx.states, []);
  await out.stop();
});

test('the OKAY test message goes out on an idle link and the reader ACKs it', async () => {
  const out = fx.output(
    { protocol: 'ADEMCO-685', identificator: `127.0.0.1:${peer.port}`, receiver_number: 1, line_number: 2 },
    { timings: { ...RULE, supervisionIntervalMs: 100 } },
  );
  await out.start();
  await waitFor(() => peer.okays() >= 2, 3000, 5);
  assert.equal(peer.events(), []);
  assert.is(fx.health.get('out:1')?.state, 'ok');
  await out.stop();
});

test.run();
