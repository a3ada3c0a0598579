import { createServer } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { encodeFrame } from '../../src/protocols/dc09/frame.js';
import { parseReply } from '../../src/protocols/dc09/replies.js';
import { freePort, LOOPBACK, sleep, waitFor } from '../helpers/net.js';
import { TcpDevice } from './helpers/devices.js';
import { PASSWORD16, PASSWORD6, corruptCrc, message, plainAck, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
let port: number;
const devices: TcpDevice[] = [];

async function device(p = port): Promise<TcpDevice> {
  const d = await TcpDevice.connect(p);
  devices.push(d);
  return d;
}

test.before(async () => {
  rig = await startRig();
  port = portOf((await rig.tcp()).address);
});

test.after.each(async () => {
  for (const d of devices.splice(0)) await d.close();
});

test.after(async () => {
  await rig.close();
});

test('the ACK arrives only after the event is in SQLite', async () => {
  const d = await device();
  const before = rig.events().length;
  const storedAtAck: number[] = [];
  d.inbox.onFrame = () => storedAtAck.push(rig.events().length);
  d.send(message({ token: 'SIA-DCS', sequence: 7 }));
  assert.equal(await d.next(), plainAck('0007').subarray(9, -1));
  assert.equal(storedAtAck, [before + 1]);
  const row = rig.events().at(-1)!;
  assert.is(row.code, 'BA');
  assert.is(row.zoneNo, '01');
  assert.is(row.groupNo, '1');
  assert.is(row.sequence, '0007');
  assert.is(row.transport, 'tcp');
  assert.is(row.receiverId, 1);
  assert.equal(row.raw, message({ token: 'SIA-DCS', sequence: 7, timestamp: row.deviceTime }));
});

test('SIA-DCS, ADM-CID and NULL in clear are ACKed with the header echoed exactly', async () => {
  const d = await device();
  const before = rig.events().length;
  d.send(message({ token: 'SIA-DCS', sequence: 11, account: '00AB12', data: '#00AB12|Nri2/FA003' }));
  assert.is(await d.nextText(), '"ACK"0011R1L1#00AB12[]');
  d.send(
    message({ token: 'ADM-CID', sequence: 12, receiver: 'A1', line: '2F', account: '0042', data: '#0042|3401 02 007' }),
  );
  assert.is(await d.nextText(), '"ACK"0012RA1L2F#0042[]');
  d.send(message({ token: 'NULL', sequence: 13, account: '0042', data: '' }));
  assert.is(await d.nextText(), '"ACK"0013R1L1#0042[]');
  const rows = rig.events().slice(before);
  assert.equal(
    rows.map((r) => [r.protocol, r.account, r.code, r.qualifier, r.groupNo, r.zoneNo, r.dc09Receiver, r.dc09Line]),
    [
      ['SIA-DCS', '00AB12', 'FA', null, '2', '003', '1', '1'],
      ['ADM-CID', '0042', '401', 'R', '02', '007', 'A1', '2F'],
    ],
  );
});

for (const [label, password] of [
  ['a 16-character key', PASSWORD16],
  ['a 6-character password', PASSWORD6],
] as const) {
  test(`SIA-DCS, ADM-CID and NULL encrypted with ${label} get an encrypted ACK`, async () => {
    const rx = await rig.tcp({ id: 3, encryption_password: password, require_encryption: true });
    const key = receiverPasswordKey(password);
    const d = await device(portOf(rx.address));
    const before = rig.events().length;
    for (const [i, token] of (['SIA-DCS', 'ADM-CID', 'NULL'] as const).entries()) {
      d.send(message({ token, sequence: 21 + i, key }));
      const body = await d.next();
      assert.ok(body.toString('latin1').startsWith(`"*ACK"00${21 + i}R1L1#1234[`), body.toString('latin1'));
      const reply = parseReply(body, key)!;
      assert.is(reply.kind, 'ACK');
      assert.ok(reply.opened && reply.encrypted);
      assert.ok(Math.abs(reply.timestamp! - Date.now()) < 3000, 'the *ACK carries the receiver time');
    }
    const rows = rig.events().slice(before);
    assert.equal(
      rows.map((r) => [r.protocol, r.encrypted, r.receiverId, r.code]),
      [
        ['SIA-DCS', true, 3, 'BA'],
        ['ADM-CID', true, 3, '130'],
      ],
    );
    await rx.stop();
  });
}

test('an encrypted message outside the time window is NAKed with the receiver time and nothing is stored', async () => {
  const rx = await rig.tcp({ id: 4, encryption_password: PASSWORD16 });
  const d = await device(portOf(rx.address));
  const before = rig.events().length;
  d.send(message({ token: 'SIA-DCS', key: receiverPasswordKey(PASSWORD16), timestamp: Date.now() - 41_000 }));
  const body = await d.next();
  assert.match(body.toString('latin1'), /^"NAK"0000R0L0A0\[\]_\d\d:\d\d:\d\d,\d\d-\d\d-\d{4}$/);
  assert.ok(Math.abs(parseReply(body)!.timestamp! - Date.now()) < 3000);
  assert.is(rig.events().length, before);
  await rx.stop();
});

test('DUH for an unknown token and for a plain message on a receiver that requires encryption', async () => {
  const d = await device();
  d.send(encodeFrame('"XYZ-FOO"0031R1L1#1234[]'));
  assert.is(await d.nextText(), '"DUH"0031R1L1#1234[]');
  const rx = await rig.tcp({ id: 5, encryption_password: PASSWORD16, require_encryption: true });
  const e = await device(portOf(rx.address));
  e.send(message({ token: 'SIA-DCS', sequence: 32 }));
  assert.is(await e.nextText(), '"DUH"0032R1L1#1234[]');
  await rx.stop();
});

test('a frame with a bad CRC gets no reply and the next frame is still ACKed', async () => {
  const d = await device();
  const before = rig.events().length;
  d.send(corruptCrc(message({ token: 'SIA-DCS', sequence: 41 })));
  await d.silence(150);
  d.send(message({ token: 'SIA-DCS', sequence: 42 }));
  assert.is(await d.nextText(), '"ACK"0042R1L1#1234[]');
  assert.is(rig.events().length, before + 1);
});

test('two frames in one write are both ACKed, in order', async () => {
  const d = await device();
  d.send(Buffer.concat([message({ token: 'SIA-DCS', sequence: 51 }), message({ token: 'ADM-CID', sequence: 52 })]));
  assert.is(await d.nextText(), '"ACK"0051R1L1#1234[]');
  assert.is(await d.nextText(), '"ACK"0052R1L1#1234[]');
});

test('one frame split over many writes is ACKed once', async () => {
  const d = await device();
  const frame = message({ token: 'SIA-DCS', sequence: 61 });
  for (let i = 0; i < frame.length; i += 3) {
    d.send(frame.subarray(i, i + 3));
    await sleep(2);
  }
  assert.is(await d.nextText(), '"ACK"0061R1L1#1234[]');
  await d.silence(100);
});

test('garbage between frames is skipped and both frames are ACKed', async () => {
  const d = await device();
  d.send(
    Buffer.concat([
      Buffer.from('noise\r\n\x00\xff'),
      message({ token: 'SIA-DCS', sequence: 71 }),
      Buffer.from('\nBAD!0'),
      message({ token: 'SIA-DCS', sequence: 72 }),
    ]),
  );
  assert.is(await d.nextText(), '"ACK"0071R1L1#1234[]');
  assert.is(await d.nextText(), '"ACK"0072R1L1#1234[]');
});

test("one device's garbage does not affect another connection", async () => {
  const noisy = await device();
  const quiet = await device();
  // An announced 4095-byte body that never completes, then more noise: the noisy session waits for it.
  noisy.send(Buffer.concat([Buffer.from('\n12340FFF"SIA-DCS"'), Buffer.alloc(2000, 0x41)]));
  quiet.send(message({ token: 'SIA-DCS', sequence: 81 }));
  assert.is(await quiet.nextText(), '"ACK"0081R1L1#1234[]');
  await noisy.silence(100);
});

test('the first message of an unknown account registers one object, later messages reuse it', async () => {
  const registered: number[] = [];
  const off = rig.runtime.bus.on('object-registered', (e) => registered.push(e.object.id));
  const d = await device();
  d.send(message({ token: 'SIA-DCS', sequence: 91, account: '5678', data: '#5678|Nri1/BA02' }));
  await d.next();
  d.send(message({ token: 'SIA-DCS', sequence: 92, account: '5678', data: '#5678|Nri1/BR02' }));
  await d.next();
  off();
  const objects = rig.store.objects.findByAccount('5678', 1);
  assert.is(objects.length, 1);
  assert.equal(registered, [objects[0]!.id]);
  assert.equal(
    rig
      .events()
      .slice(-2)
      .map((r) => r.objectId),
    [objects[0]!.id, objects[0]!.id],
  );
  assert.is(objects[0]!.remoteAddress, `${LOOPBACK}:${d.socket.localPort}`);
});

test('a NULL link test updates last_ping and writes no journal row', async () => {
  const d = await device();
  const before = rig.events().length;
  const t0 = Date.now();
  d.send(message({ token: 'NULL', sequence: 101, account: '7777' }));
  assert.is(await d.nextText(), '"ACK"0101R1L1#7777[]');
  assert.is(rig.events().length, before);
  const object = rig.store.objects.findByAccount('7777', 1)[0]!;
  assert.ok(object.lastPing !== null && object.lastPing >= t0 - 5, `last_ping ${object.lastPing}`);
});

test('a connection keeps a session row: opened at its first message, closed with its counters', async () => {
  const d = await device();
  const frame = message({ token: 'SIA-DCS', sequence: 111, account: '1111', data: '#1111|Nri1/BA01' });
  d.send(frame);
  const ack = await d.next();
  const localPort = d.socket.localPort;
  await d.close();
  const objectId = rig.store.objects.findByAccount('1111', 1)[0]!.id;
  await waitFor(() => rig.store.sessions.recent(objectId, 5)[0]?.disconnectedAt != null, 2000);
  const [session] = rig.store.sessions.recent(objectId, 5);
  assert.is(session!.events, 1);
  assert.is(session!.bytesIn, frame.length);
  assert.is(session!.bytesOut, ack.length + 10);
  assert.is(session!.remoteAddress, `${LOOPBACK}:${localPort}`);
});

test('stop closes every connection; start listens again and devices reconnect', async () => {
  const p = await freePort();
  const rx = await rig.tcp({ id: 6, port: p });
  const d = await device(p);
  d.send(message({ token: 'SIA-DCS', sequence: 121 }));
  assert.is(await d.nextText(), '"ACK"0121R1L1#1234[]');
  await rx.stop();
  assert.ok(await d.closedWithin(1000), 'the gateway closed the connection');
  assert.is(rig.health.get('rx:tcp:6'), undefined, 'a stopped receiver leaves the health registry');
  await rx.start();
  const again = await device(p);
  again.send(message({ token: 'SIA-DCS', sequence: 122 }));
  assert.is(await again.nextText(), '"ACK"0122R1L1#1234[]');
  assert.is(rig.health.get('rx:tcp:6')!.state, 'ok');
  await rx.stop();
});

test('a port already in use reports health failed without crashing', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, LOOPBACK, () => resolve()));
  const taken = (blocker.address() as { port: number }).port;
  const err = await rig.tcp({ id: 7, port: taken }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(isVigilError(err, 'SERVICE_FAILED'), String(err));
  const health = rig.health.get('rx:tcp:7')!;
  assert.is(health.state, 'failed');
  assert.match(health.detail ?? '', /EADDRINUSE/);
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
  // The other receiver keeps working.
  const d = await device();
  d.send(message({ token: 'SIA-DCS', sequence: 131 }));
  assert.is(await d.nextText(), '"ACK"0131R1L1#1234[]');
});

test('health metrics count connections, frames, ACKs, NAKs, DUHs and rejected frames', async () => {
  const rx = await rig.tcp({ id: 8, encryption_password: PASSWORD16 });
  const d = await device(portOf(rx.address));
  d.send(message({ token: 'SIA-DCS', sequence: 141 }));
  await d.next();
  d.send(encodeFrame('"XYZ"0142R1L1#1234[]'));
  await d.next();
  d.send(
    message({ token: 'SIA-DCS', sequence: 143, key: receiverPasswordKey(PASSWORD16), timestamp: Date.now() - 300_000 }),
  );
  await d.next();
  d.send(corruptCrc(message({ token: 'SIA-DCS', sequence: 144 })));
  await d.silence(100);
  rx.publish();
  const m = rig.health.get('rx:tcp:8')!.metrics;
  assert.equal(
    [m.connections, m.frames, m.events, m.acks, m.naks, m.duhs, m.rejected, m.listening],
    [1, 3, 1, 1, 1, 1, 1, rx.address],
  );
  assert.is(rig.health.get('rx:tcp:8')!.kind, 'receiver');
  await rx.stop();
});

test.run();
