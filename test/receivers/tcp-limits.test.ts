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
    [
      DEFAULT_RECEIVER_OPTIONS.idleTimeoutMs,
      DEFAULT_RECEIVER_OPTIONS.maxConnections,
      DEFAULT_RECEIVER_OPTIONS.maxInFlight,
    ],
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
  // Its own rig: with the shared rig's 600 ms idle timeout, the paused flooder would be closed as
  // idle while the test waits to see it stay blocked (a closed socket's buffer is empty).
  const flooded = await startRig({ receiver: { idleTimeoutMs: 60_000, maxConnections: 3, maxInFlight: 8 } });
  const floodedPort = portOf((await flooded.tcp()).address);
  const flood = await TcpDevice.connect(floodedPort);
  const other = await TcpDevice.connect(floodedPort);
  try {
    flood.socket.pause(); // never reads its ACKs
    const frame = message({ token: 'SIA-DCS', sequence: 1 });
    const burst = Buffer.concat(Array.from({ length: 2000 }, () => frame));
    // The gateway reads on while the device's unread ACKs still fit in the sockets' kernel buffers
    // (their size depends on the machine); once they are full its writes block and it must stop
    // reading for good. Write until the sender is pushed back and stays so: no 'drain' for 5 s,
    // longer than any one commit of the frames read takes here, even when a loaded machine
    // leaves the gateway without a CPU for a second or two.
    const deadline = Date.now() + 15_000;
    let written = 0;
    let blocked = false;
    while (!blocked && Date.now() < deadline) {
      while (Date.now() < deadline && flood.socket.write(burst)) written += burst.length;
      written += burst.length;
      blocked = !(await flood.drainedWithin(5000));
    }
    // Had the gateway kept reading (queueing ACKs nobody takes), the sender would never stay pushed back.
    assert.ok(blocked, `the sender stayed pushed back after ${written} bytes: the gateway stopped reading`);
    assert.ok(written < 64 * 1024 * 1024, `bounded: ${written} bytes written before it stopped`);
    await sleep(300);
    assert.ok(
      !flood.socket.destroyed && flood.socket.writableLength > 0,
      `and it stays blocked, still connected (destroyed ${flood.socket.destroyed}, buffered ${flood.socket.writableLength}, written ${written})`,
    );
    other.send(message({ token: 'SIA-DCS', sequence: 2 }));
    assert.is(await other.nextText(), '"ACK"0002R1L1#1234[]');
  } finally {
    await flood.close();
    await other.close();
    await flooded.close();
  }
});

test.run();
