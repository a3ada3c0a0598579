/** TCP receiver limits with small injected values: idle timeout, max connections, a flooding device. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RECEIVER_OPTIONS } from '../../src/receivers/receiver-options.js';
import { sleep, waitFor } from '../helpers/net.js';
import { TcpDevice } from './helpers/devices.js';
import { message, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;
let port: number;
const devices: TcpDevice[] = [];

async function device(): Promise<TcpDevice> {
  const d = await TcpDevice.connect(port);
  devices.push(d);
  return d;
}

test.before(async () => {
  rig = await startRig({ receiver: { idleTimeoutMs: 600, maxConnections: 3, maxInFlight: 8 } });
  port = portOf((await rig.tcp()).address);
});

test.after.each(async () => {
  for (const d of devices.splice(0)) await d.close();
  await waitFor(() => rig.health.get('rx:tcp:1')!.metrics.connections === 0, 2000);
});

test.after(async () => {
  await rig.close();
});

test('the documented defaults: 10 min idle timeout, 20,000 connections, 256 frames in flight', () => {
  assert.equal(
    [DEFAULT_RECEIVER_OPTIONS.idleTimeoutMs, DEFAULT_RECEIVER_OPTIONS.maxConnections, DEFAULT_RECEIVER_OPTIONS.maxInFlight],
    [600_000, 20_000, 256],
  );
});

test('a connection silent for the idle timeout is closed; one that keeps talking is not', async () => {
  const idle = await device();
  const busy = await device();
  for (let i = 0; i < 16; i++) {
    busy.send(message({ token: 'NULL', sequence: i + 1 }));
    await busy.next();
    await sleep(50);
  }
  assert.ok(await idle.closedWithin(2000), 'the idle connection was closed');
  assert.not.ok(await busy.closedWithin(0), 'the busy connection is still open');
});

test('connections beyond max_connections are refused and counted', async () => {
  const open = [await device(), await device(), await device()];
  await waitFor(() => rig.health.get('rx:tcp:1')!.metrics.connections === 3, 2000);
  const extra = await device();
  assert.ok(await extra.closedWithin(1000), 'the fourth connection was closed at once');
  await waitFor(() => rig.health.get('rx:tcp:1')!.metrics.refused === 1, 2000);
  open[0]!.send(message({ token: 'SIA-DCS', sequence: 9 }));
  assert.is(await open[0]!.nextText(), '"ACK"0009R1L1#1234[]', 'the admitted ones work');
});

test('a device that floods without reading its ACKs is paused; memory stays bounded and the receiver serves others', async () => {
  const flood = await device();
  flood.socket.pause(); // never reads its ACKs
  const frame = message({ token: 'SIA-DCS', sequence: 1 });
  const burst = Buffer.concat(Array.from({ length: 2000 }, () => frame));
  const deadline = Date.now() + 4000;
  let written = 0;
  // Write until the kernel pushes back on the sender: the gateway has stopped reading.
  while (Date.now() < deadline && flood.socket.write(burst)) written += burst.length;
  // Had the gateway kept reading (queueing ACKs nobody takes), the sender would never be pushed back.
  assert.ok(Date.now() < deadline, `the sender was pushed back after ${written} bytes: the gateway paused reading`);
  await sleep(300);
  assert.ok(flood.socket.writableLength > 0, 'and it stays blocked');
  const other = await device();
  other.send(message({ token: 'SIA-DCS', sequence: 2 }));
  assert.is(await other.nextText(), '"ACK"0002R1L1#1234[]');
});

test.run();
