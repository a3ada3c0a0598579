/**
 * COM receivers over real ptys (socat): DC-09 through the same session as TCP, the MLR2 computer-port feed (ACK after
 * commit, NAK, heartbeats), garbage and over-long lines that never block the line, unplug and replug.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { HEARTBEAT, encodeContactId } from '../../src/protocols/mlr2/codec.js';
import { waitFor } from '../helpers/net.js';
import { startComRig } from './helpers/com-rig.js';
import { PASSWORD16, corruptCrc, message, plainAck } from './helpers/rig.js';

const ACK = Buffer.from([0x06]);
const NAK = Buffer.from([0x15]);
const cidLine = (zone: string): Buffer => {
  const r = encodeContactId(
    { receiver: 2, line: 3 },
    { account: '4321', qualifier: 'E', code: '130', group: '01', zone },
  );
  if (!r.ok) throw new Error(r.reason);
  return r.bytes;
};

test('SIA-DC09 on a COM line: a frame split over two writes, after garbage, is journaled and ACKed on the line', async () => {
  const rig = await startComRig({});
  try {
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'ok');
    const frame = message({ token: 'SIA-DCS', sequence: 7 });
    rig.send(Buffer.concat([Buffer.from('\x00\xffnoise'), frame.subarray(0, 10)]));
    await new Promise((r) => setTimeout(r, 50));
    rig.send(Buffer.concat([frame.subarray(10), corruptCrc(message({ token: 'SIA-DCS', sequence: 8 }))]));
    assert.equal(await rig.replies(plainAck('0007').length), plainAck('0007'));
    const [row] = rig.events();
    assert.equal(
      [row!.transport, row!.remoteAddress, row!.receiverId, row!.receiverKind, row!.protocol, row!.code, row!.account],
      ['serial', rig.pty.a, 3, 'com', 'SIA-DCS', 'BA', '1234'],
    );
    await waitFor(() => rig.health.get(`serial:${rig.pty.a}`)?.metrics.framing_errors === 1, 2000);
    assert.is(rig.health.get('rx:com:3')!.metrics.rejected, 1);
    assert.is(
      rig.health.get(`serial:${rig.pty.a}`)!.metrics.receiver_id,
      3,
      'the port is shown to whoever may see receiver 3',
    );
  } finally {
    await rig.close();
  }
});

test('SIA-DC09 on a COM line with encryption_password: AES frames are opened and the ACK is encrypted', async () => {
  const rig = await startComRig({ encryption_password: PASSWORD16 });
  try {
    rig.send(message({ token: 'SIA-DCS', sequence: 9, key: Buffer.from(PASSWORD16, 'latin1') }));
    await waitFor(() => Buffer.concat(rig.received).includes(0x0d));
    assert.match(Buffer.concat(rig.received).toString('latin1'), /^\n[0-9A-F]{4}0[0-9A-F]{3}"\*ACK"0009R1L1#1234\[/);
    assert.equal(
      rig.events().map((e) => [e.encrypted, e.code]),
      [[true, 'BA']],
    );
  } finally {
    await rig.close();
  }
});

test('MLR2: events are ACKed (0x06) after their commit, heartbeats ACKed but not journaled, malformed lines NAKed', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    rig.send(cidLine('015'));
    assert.equal(await rig.replies(1), ACK);
    assert.equal(
      rig
        .events()
        .map((e) => [
          e.protocol,
          e.account,
          e.qualifier,
          e.code,
          e.groupNo,
          e.zoneNo,
          e.dc09Receiver,
          e.dc09Line,
          e.transport,
        ]),
      [['ADM-CID', '4321', 'E', '130', '01', '015', '02', '3', 'serial']],
    );
    rig.send(HEARTBEAT);
    assert.equal(await rig.replies(2), Buffer.concat([ACK, ACK]));
    rig.send(Buffer.from([0x01, 0x02, 0x03, 0x14]));
    assert.equal(await rig.replies(3), Buffer.concat([ACK, ACK, NAK]));
    assert.is(rig.events().length, 1, 'neither the heartbeat nor the malformed line is journaled');
    await waitFor(() => rig.health.get('rx:com:3')?.metrics.heartbeats === 1, 2000);
  } finally {
    await rig.close();
  }
});

test('MLR2: garbage before a message and an over-long line never block the line', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    rig.send(Buffer.concat([Buffer.from([0xff, 0xfe, 0x80]), cidLine('001')]));
    assert.equal(await rig.replies(1), ACK);
    rig.send(Buffer.alloc(300, 0x41));
    rig.send(Buffer.concat([Buffer.from('\x14'), cidLine('002')]));
    assert.equal(await rig.replies(3), Buffer.concat([ACK, NAK, ACK]));
    assert.equal(
      rig.events().map((e) => e.zoneNo),
      ['001', '002'],
    );
    await waitFor(() => rig.health.get(`serial:${rig.pty.a}`)?.metrics.framing_errors === 1, 2000);
    await waitFor(() => rig.health.get('rx:com:3')?.metrics.discarded_bytes === 303, 2000);
  } finally {
    await rig.close();
  }
});

test('MLR2: no heartbeat for heartbeat_timeout_s makes the line degraded; the next heartbeat makes it ok', async () => {
  const clock = new ManualClock(Date.now());
  const rig = await startComRig({ protocol: 'MLR2', heartbeat_timeout_s: 75 }, clock);
  try {
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'ok');
    clock.advance(74_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.is(rig.health.get('rx:com:3')!.state, 'ok');
    clock.advance(2_000);
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'degraded', 2000);
    assert.is(rig.health.get('rx:com:3')!.detail, 'no heartbeat for 76 s (limit 75 s)');
    rig.send(HEARTBEAT);
    await rig.replies(1);
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'ok', 2000);
  } finally {
    await rig.close();
  }
});

test('unplugged: the receiver is failed while the line is gone and works again once it is plugged back in', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    rig.send(cidLine('010'));
    assert.equal(await rig.replies(1), ACK);
    await rig.pty.stop();
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'failed', 3000);
    assert.match(rig.health.get('rx:com:3')!.detail ?? '', /^port .*ttyA: /);
    await rig.pty.start();
    await waitFor(() => rig.health.get('rx:com:3')?.state === 'ok', 3000);
    await rig.openPeer();
    rig.send(cidLine('011'));
    assert.equal(await rig.replies(2), Buffer.concat([ACK, ACK]));
    assert.equal(
      rig.events().map((e) => e.zoneNo),
      ['010', '011'],
    );
    assert.is(rig.health.get(`serial:${rig.pty.a}`)!.metrics.reopens, 1);
  } finally {
    await rig.close();
  }
});

test.run();
