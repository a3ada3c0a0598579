/**
 * Replayed encrypted DC-09 frames (issue #7 defect 9; docs/dc09.md "Replays"): an identical frame
 * within the time window is ACKed (the sender may have missed our ACK) but journaled once, over
 * TCP and UDP; a retransmission encrypted again with a fresh pad counts as the same message; a
 * different message with the same sequence number is journaled.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { parseReply } from '../../src/protocols/dc09/replies.js';
import { waitFor } from '../helpers/net.js';
import { TcpDevice, UdpDevice } from './helpers/devices.js';
import { PASSWORD16, message, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
test.before.each(async () => {
  rig = await startRig();
});
test.after.each(async () => {
  await rig.close();
});

const key = receiverPasswordKey(PASSWORD16);

function ackOf(body: Buffer): string {
  const reply = parseReply(body, key)!;
  return `${reply.kind} ${reply.sequence}`;
}

test('TCP: the same encrypted frame sent three times is ACKed three times and journaled once', async () => {
  const rx = await rig.tcp({ encryption_password: PASSWORD16 });
  const d = await TcpDevice.connect(portOf(rx.address));
  const frame = message({ token: 'SIA-DCS', sequence: 31, key });
  for (let i = 0; i < 3; i += 1) {
    d.send(frame);
    assert.is(ackOf(await d.next()), 'ACK 0031');
  }
  assert.equal(
    rig.events().map((e) => [e.code, e.encrypted]),
    [['BA', true]],
  );
  await waitFor(() => rig.health.get('rx:tcp:1')?.metrics.replays === 2, 2000);
  // A retransmission of the same message encrypted again (fresh pad, other bytes) is a replay too.
  const timestamp = Date.now();
  const first = message({ token: 'ADM-CID', sequence: 32, key, timestamp });
  const again = message({ token: 'ADM-CID', sequence: 32, key, timestamp });
  assert.not.equal(first, again, 'a fresh pad gives other bytes');
  d.send(first);
  assert.is(ackOf(await d.next()), 'ACK 0032');
  d.send(again);
  assert.is(ackOf(await d.next()), 'ACK 0032');
  // Same sequence and time, other content: a different message, journaled.
  d.send(message({ token: 'ADM-CID', sequence: 32, key, timestamp, data: '#1234|1131 01 016' }));
  assert.is(ackOf(await d.next()), 'ACK 0032');
  assert.equal(
    rig.events().map((e) => [e.code, e.zoneNo]),
    [
      ['BA', '01'],
      ['130', '015'],
      ['131', '016'],
    ],
  );
  await d.close();
});

test('UDP: a replayed datagram is ACKed and journaled once; the same frame on another account is not a replay', async () => {
  const rx = await rig.udp({ encryption_password: PASSWORD16 });
  const d = await UdpDevice.open();
  const frame = message({ token: 'SIA-DCS', sequence: 41, key });
  d.send(frame, portOf(rx.address));
  assert.is(ackOf(await d.next()), 'ACK 0041');
  d.send(frame, portOf(rx.address));
  assert.is(ackOf(await d.next()), 'ACK 0041');
  const timestamp = Date.now();
  d.send(
    message({ token: 'SIA-DCS', sequence: 42, key, timestamp, account: '5678', data: '#5678|Nri1/BA01' }),
    portOf(rx.address),
  );
  assert.is(ackOf(await d.next()), 'ACK 0042');
  d.send(
    message({ token: 'SIA-DCS', sequence: 42, key, timestamp, account: '9999', data: '#9999|Nri1/BA01' }),
    portOf(rx.address),
  );
  assert.is(ackOf(await d.next()), 'ACK 0042');
  assert.equal(
    rig.events().map((e) => e.account),
    ['1234', '5678', '9999'],
  );
  await d.close();
});

test('plain frames without the time test are never treated as replays (nothing bounds them)', async () => {
  const rx = await rig.tcp();
  const d = await TcpDevice.connect(portOf(rx.address));
  const frame = message({ token: 'SIA-DCS', sequence: 51 });
  d.send(frame);
  await d.next();
  d.send(frame);
  await d.next();
  assert.is(rig.events().length, 2);
  await d.close();
});

test.run();
