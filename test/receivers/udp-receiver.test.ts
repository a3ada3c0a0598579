import { createSocket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { encodeFrame } from '../../src/protocols/dc09/frame.js';
import { parseReply } from '../../src/protocols/dc09/replies.js';
import { LOOPBACK } from '../helpers/net.js';
import { literalLookup } from '../../src/receivers/udp-receiver.js';
import { UdpDevice } from './helpers/devices.js';
import { PASSWORD16, PASSWORD6, corruptCrc, message, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
let port: number;
const devices: UdpDevice[] = [];

async function device(): Promise<UdpDevice> {
  const d = await UdpDevice.open();
  devices.push(d);
  return d;
}

test.before(async () => {
  rig = await startRig();
  port = portOf((await rig.udp({ id: 2 })).address);
});

test.after.each(async () => {
  for (const d of devices.splice(0)) await d.close();
});

test.after(async () => {
  await rig.close();
});

test('the ACK goes to the sender only after the event is in SQLite', async () => {
  const d = await device();
  const before = rig.events().length;
  const storedAtAck: number[] = [];
  d.inbox.onFrame = () => storedAtAck.push(rig.events().length);
  d.send(message({ token: 'SIA-DCS', sequence: 1 }), port);
  assert.is(await d.nextText(), '"ACK"0001R1L1#1234[]');
  assert.equal(storedAtAck, [before + 1]);
  const row = rig.events().at(-1)!;
  assert.equal(
    [row.transport, row.receiverId, row.receiverKind, row.remoteAddress],
    ['udp', 2, 'udp', `${LOOPBACK}:${d.port}`],
  );
});

test('SIA-DCS, ADM-CID and NULL in clear are ACKed with the header echoed exactly', async () => {
  const d = await device();
  const before = rig.events().length;
  d.send(message({ token: 'SIA-DCS', sequence: 11, line: 3 }), port);
  assert.is(await d.nextText(), '"ACK"0011R1L3#1234[]');
  d.send(message({ token: 'ADM-CID', sequence: 12 }), port);
  assert.is(await d.nextText(), '"ACK"0012R1L1#1234[]');
  d.send(message({ token: 'NULL', sequence: 13 }), port);
  assert.is(await d.nextText(), '"ACK"0013R1L1#1234[]');
  assert.equal(
    rig
      .events()
      .slice(before)
      .map((r) => r.protocol),
    ['SIA-DCS', 'ADM-CID'],
  );
});

for (const [label, password] of [
  ['a 16-character key', PASSWORD16],
  ['a 6-character password', PASSWORD6],
] as const) {
  test(`SIA-DCS, ADM-CID and NULL encrypted with ${label} get an encrypted ACK`, async () => {
    const rx = await rig.udp({ id: 12, encryption_password: password });
    const key = receiverPasswordKey(password);
    const d = await device();
    const before = rig.events().length;
    for (const [i, token] of (['SIA-DCS', 'ADM-CID', 'NULL'] as const).entries()) {
      d.send(message({ token, sequence: 21 + i, key }), portOf(rx.address));
      const reply = parseReply(await d.next(), key)!;
      assert.equal(
        [reply.kind, reply.encrypted, reply.opened, reply.sequence, reply.account],
        ['ACK', true, true, `00${21 + i}`, '1234'],
      );
    }
    assert.equal(
      rig
        .events()
        .slice(before)
        .map((r) => [r.protocol, r.encrypted]),
      [
        ['SIA-DCS', true],
        ['ADM-CID', true],
      ],
    );
    await rx.stop();
  });
}

test('an encrypted message outside the time window is NAKed and nothing is stored', async () => {
  const rx = await rig.udp({ id: 13, encryption_password: PASSWORD16 });
  const d = await device();
  const before = rig.events().length;
  d.send(
    message({ token: 'SIA-DCS', key: receiverPasswordKey(PASSWORD16), timestamp: Date.now() + 21_000 }),
    portOf(rx.address),
  );
  assert.match(await d.nextText(), /^"NAK"0000R0L0A0\[\]_\d\d:\d\d:\d\d,\d\d-\d\d-\d{4}$/);
  assert.is(rig.events().length, before);
  await rx.stop();
});

test('DUH for a message the receiver cannot process', async () => {
  const d = await device();
  d.send(encodeFrame('"SIA-DCS"0031R1L1#1234[#1234|Nri1/]'), port);
  assert.is(await d.nextText(), '"DUH"0031R1L1#1234[]');
});

test('a datagram with a bad CRC, trailing bytes or two frames gets no reply', async () => {
  const d = await device();
  const frame = message({ token: 'SIA-DCS', sequence: 41 });
  d.send(corruptCrc(frame), port);
  d.send(Buffer.concat([frame, Buffer.from('x')]), port);
  d.send(Buffer.concat([frame, frame]), port);
  await d.silence(200);
  d.send(frame, port);
  assert.is(await d.nextText(), '"ACK"0041R1L1#1234[]');
});

test('a reply address that is a literal is looked up at once; a name still goes to DNS', async () => {
  const answers: Array<[string, number]> = [];
  literalLookup('127.0.0.1', 4, (_err, address, family) => answers.push([address, family]));
  literalLookup('::1', 6, (_err, address, family) => answers.push([address, family]));
  assert.equal(
    answers,
    [
      ['127.0.0.1', 4],
      ['::1', 6],
    ],
    'answered inside the call',
  );
  const named = new Promise<[string, number]>((resolve, reject) => {
    literalLookup('localhost', 4, (err, address, family) => (err ? reject(err) : resolve([address, family])));
  });
  assert.is(answers.length, 2);
  assert.equal(await named, ['127.0.0.1', 4]);
});

/**
 * A device in a thread of its own (its own event loop): sends one frame, and reports when the reply
 * reached it, on the clock every thread shares (performance.timeOrigin + now()).
 */
const TIMED_DEVICE = `
const { createSocket } = require('node:dgram');
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const socket = createSocket('udp4');
socket.on('message', (reply) => {
  parentPort.postMessage({ at: performance.timeOrigin + performance.now(), reply: reply.toString('latin1') });
  socket.close();
});
socket.bind(0, workerData.host, () => socket.send(Buffer.from(workerData.frame, 'latin1'), workerData.port, workerData.host));
`;

test('the ACK leaves before the bus hears of the event: a slow listener does not hold it back', async () => {
  const HOLD_MS = 300;
  let heardAt = 0;
  const slowListener = (): void => {
    if (heardAt !== 0) return;
    heardAt = performance.timeOrigin + performance.now();
    const until = performance.now() + HOLD_MS;
    while (performance.now() < until) {
      /* the bus's work, however long */
    }
  };
  const unsubscribe = rig.runtime.bus.on('event-stored', slowListener);
  try {
    const frame = message({ token: 'SIA-DCS', sequence: 31 }).toString('latin1');
    const worker = new Worker(TIMED_DEVICE, { eval: true, workerData: { host: LOOPBACK, port, frame } });
    const { at, reply } = await new Promise<{ at: number; reply: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    assert.match(reply, /"ACK"0031R1L1#1234\[\]/);
    assert.ok(heardAt > 0, 'the bus heard the event');
    // Sent on the next tick, the ACK would leave after the listener: at heardAt + HOLD_MS or later.
    assert.ok(
      at < heardAt + HOLD_MS / 2,
      `ACK received ${Math.round(at - heardAt)} ms after the bus started on the event`,
    );
  } finally {
    unsubscribe();
  }
});

test("one device's bad datagrams do not affect another device", async () => {
  const noisy = await device();
  const quiet = await device();
  for (let i = 0; i < 50; i++) noisy.send(Buffer.from(`\n1234${'garbage'.repeat(i % 7)}`), port);
  quiet.send(message({ token: 'SIA-DCS', sequence: 51 }), port);
  assert.is(await quiet.nextText(), '"ACK"0051R1L1#1234[]');
  await noisy.silence(100);
});

test('a device-link HELLO over UDP is ignored (the link needs TCP)', async () => {
  const d = await device();
  d.send(encodeFrame('"VL-HELLO"0001#1234[V1|U0123456789ABCDEF]'), port);
  await d.silence(150);
});

test('stop and start again on the same port keeps working', async () => {
  const rx = await rig.udp({ id: 14 });
  const p = portOf(rx.address);
  await rx.stop();
  assert.is(rig.health.get('rx:udp:14'), undefined, 'a stopped receiver leaves the health registry');
  const restarted = await rig.udp({ id: 14, port: p });
  const d = await device();
  d.send(message({ token: 'SIA-DCS', sequence: 61 }), p);
  assert.is(await d.nextText(), '"ACK"0061R1L1#1234[]');
  assert.is(rig.health.get('rx:udp:14')!.state, 'ok');
  await restarted.stop();
});

test('a port already in use reports health failed without crashing', async () => {
  const blocker = createSocket('udp4');
  await new Promise<void>((resolve) => blocker.bind(0, LOOPBACK, () => resolve()));
  const err = await rig.udp({ id: 15, port: blocker.address().port }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(isVigilError(err, 'SERVICE_FAILED'), String(err));
  assert.is(rig.health.get('rx:udp:15')!.state, 'failed');
  assert.match(rig.health.get('rx:udp:15')!.detail ?? '', /EADDRINUSE/);
  await new Promise<void>((resolve) => blocker.close(() => resolve()));
});

test.run();
