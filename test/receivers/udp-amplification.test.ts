/**
 * #28.9: a UDP source can be forged, so the receiver must not be an amplifier. A reply longer than
 * the datagram that drew it goes only to a source that has had a frame ACKed; every source has a
 * token bucket of datagrams. Real sockets on loopback; 127.0.0.2 and 127.0.0.3 play other hosts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeFrame } from '../../src/protocols/dc09/frame.js';
import type { UdpReceiver } from '../../src/receivers/udp-receiver.js';
import { sleep, waitFor } from '../helpers/net.js';
import { UdpDevice } from './helpers/devices.js';
import { message, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
let receiver: UdpReceiver;
let port: number;
const devices: UdpDevice[] = [];

async function device(address: string): Promise<UdpDevice> {
  const d = await UdpDevice.open(address);
  devices.push(d);
  return d;
}

function figure(name: string): unknown {
  receiver.publish();
  return rig.health.get('rx:udp:1')?.metrics[name];
}

test.before(async () => {
  rig = await startRig();
  // Account 1234 has had its object for two hours: a settled account (src/receivers/new-object-gate.ts).
  await rig.store.write.objects.upsertMain({
    account: '1234',
    receiverId: 1,
    receiverKind: 'udp',
    at: Date.now() - 7_200_000,
  });
  receiver = await rig.udp({ max_datagrams_per_source_per_s: 5 });
  port = portOf(receiver.address);
});

test.after(async () => {
  for (const d of devices) await d.close();
  await rig.close();
});

/** 11 bytes (LF, CRC, length, one `"`): correctly framed, not processable, so DC-09 would answer a 21-byte DUH. */
const TINY = encodeFrame('"');

test('an 11-byte datagram from a source never verified draws no reply (no 21-byte DUH)', async () => {
  assert.is(TINY.length, 11);
  const stranger = await device('127.0.0.2');
  stranger.send(TINY, port);
  await stranger.silence(400);
  await waitFor(() => figure('replies_withheld') === 1, 2000);
  assert.is(figure('duhs'), 1, 'decided as a DUH, and the DUH withheld');
});

test('a DUH no longer than its datagram still goes to a stranger (a panel with the wrong key learns it)', async () => {
  const stranger = await device('127.0.0.3');
  // Encrypted, and the receiver has no key: DUH, with the header echoed; far shorter than the frame.
  const sealed = encodeFrame('"*SIA-DCS"0007R1L1#1234[0123456789ABCDEF0123456789ABCDEF]');
  stranger.send(sealed, port);
  const reply = await stranger.next();
  assert.is(reply.toString('latin1'), '"DUH"0007R1L1#1234[]');
});

test('once a source had a frame of a settled account ACKed it is verified: the same tiny datagram then gets its DUH', async () => {
  // A frame of an account made up just now verifies nothing: a stranger could invent one.
  const inventor = await device('127.0.0.5');
  inventor.send(message({ token: 'NULL', sequence: 4, account: 'F00D01' }), port);
  assert.is((await inventor.next()).toString('latin1'), '"ACK"0004R1L1#F00D01[]');
  inventor.send(TINY, port);
  await inventor.silence(300);
  const known = await device('127.0.0.1');
  known.send(message({ token: 'NULL', sequence: 3 }), port);
  assert.is((await known.next()).toString('latin1'), '"ACK"0003R1L1#1234[]');
  known.send(TINY, port);
  assert.is((await known.next()).toString('latin1'), '"DUH"0000[]');
});

test("datagrams beyond a source's rate are dropped undecided and counted; another source is served", async () => {
  await sleep(2100); // the earlier tests' tokens come back (5/s, 10 at once)
  const flood = await device('127.0.0.4');
  for (let i = 0; i < 40; i++) flood.send(message({ token: 'NULL', sequence: i + 1 }), port);
  await waitFor(() => Number(figure('rate_limited')) >= 25, 3000);
  const acks: string[] = [];
  try {
    for (;;) acks.push((await flood.next(500)).toString('latin1'));
  } catch {
    // no more replies
  }
  // 10 at once, then 5/s: a loaded machine may take a few hundred ms to read the 40.
  assert.ok(acks.length >= 10 && acks.length <= 16, `${acks.length} ACKs to 40 datagrams`);
  assert.is(acks.length + Number(figure('rate_limited')), 40, 'every datagram either answered or counted');
  const other = await device('127.0.0.1');
  other.send(message({ token: 'NULL', sequence: 77 }), port);
  assert.is((await other.next()).toString('latin1'), '"ACK"0077R1L1#1234[]');
});

test.run();
