/**
 * #28.6: one host must not hold every connection slot. Per source (IPv4 address, IPv6 /64): open
 * connections and accepts per minute; in the whole process: the connection budget, in which
 * strangers' connections that sent no valid frame yet are shed (the longest idle first) and known
 * devices keep their room; a short idle timeout until the first valid frame. Real sockets on
 * loopback: 127.0.0.1 is the known device, 127.0.0.2 and 127.0.0.3 are other hosts (all of 127/8
 * is loopback). Bounded: a few hundred connections at most.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TcpReceiver } from '../../src/receivers/tcp-receiver.js';
import { sleep, waitFor } from '../helpers/net.js';
import { linkDevice } from './helpers/api.js';
import { TcpDevice } from './helpers/devices.js';
import { message, portOf, startRig, type Rig } from './helpers/rig.js';

const LOCAL = '127.0.0.1';

function figures(rig: Rig, receiver: TcpReceiver): Record<string, unknown> {
  receiver.publish();
  return { ...rig.health.get('rx:tcp:1')!.metrics };
}

/** Opens `count` connections from `from`, `parallel` at a time; every one that connected is returned. */
async function openMany(port: number, from: string, count: number, parallel = 25): Promise<TcpDevice[]> {
  const opened: TcpDevice[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = await Promise.allSettled(
      Array.from({ length: Math.min(parallel, count - i) }, () => TcpDevice.connect(port, LOCAL, from)),
    );
    for (const r of batch) if (r.status === 'fulfilled') opened.push(r.value);
  }
  return opened;
}

function openOf(devices: readonly TcpDevice[]): TcpDevice[] {
  return devices.filter((d) => !d.socket.destroyed && d.socket.readyState === 'open');
}

/** Connections the receiver has decided on: accepted or refused, for whatever reason. */
function decided(rig: Rig, receiver: TcpReceiver): number {
  const f = figures(rig, receiver);
  return ['accepted', 'refused', 'refused_source', 'refused_rate', 'refused_budget'].reduce(
    (n, k) => n + Number(f[k]),
    0,
  );
}

/**
 * The devices still open once the receiver has decided on `connects` connections and every one it
 * closed has seen its close: then the client side holds exactly what the descriptor budget counts
 * (the pool counts a socket out the moment it is refused or shed, before its close events run).
 * Waits on those two facts, never on a fixed pause, so a busy machine only makes it slower.
 * `devices`: every client connection to this receiver, the only door of the rig's budget.
 */
async function settled(
  rig: Rig,
  receiver: TcpReceiver,
  connects: number,
  devices: readonly TcpDevice[],
): Promise<TcpDevice[]> {
  await waitFor(() => decided(rig, receiver) >= connects, 30_000);
  await waitFor(() => openOf(devices).length === Number(figures(rig, receiver).budget_used), 30_000);
  return openOf(devices);
}

async function closeAll(devices: readonly TcpDevice[]): Promise<void> {
  await Promise.all(devices.map((d) => d.close()));
}

test('a flood from one address is capped per source while a known device keeps getting its ACKs', async () => {
  const rig = await startRig();
  const receiver = await rig.tcp({ max_connections_per_source: 40, max_accepts_per_source_per_min: 120 });
  const port = portOf(receiver.address);
  const known = await TcpDevice.connect(port, LOCAL, LOCAL);
  const flood: TcpDevice[] = [];
  try {
    known.send(message({ token: 'NULL', sequence: 1 }));
    assert.is(await known.nextText(), '"ACK"0001R1L1#1234[]');
    // The device keeps reporting during the flood; every message must be ACKed.
    let sequence = 1;
    let acked = 1;
    let reporting = true;
    const reporter = (async () => {
      while (reporting && sequence < 500) {
        sequence++;
        known.send(message({ token: 'SIA-DCS', sequence }));
        assert.is(await known.nextText(10_000), `"ACK"${String(sequence).padStart(4, '0')}R1L1#1234[]`);
        acked++;
        await sleep(10);
      }
    })();
    flood.push(...(await openMany(port, '127.0.0.2', 300)));
    const open = (await settled(rig, receiver, 1 + flood.length, [known, ...flood])).filter((d) => d !== known);
    // Every message is ACKed within 10 s (the reporter asserts it); how many fit in the flood's time
    // is the machine's speed, so a few more come while the flood's admitted sockets stay open.
    await waitFor(() => acked >= 5, 30_000);
    reporting = false;
    await reporter;
    assert.ok(acked >= 5, `the known device was ACKed throughout (${acked} ACKs)`);
    assert.ok(open.length <= 40, `at most 40 of the flood's connections stay open: ${open.length}`);
    const f = figures(rig, receiver);
    const refused = Number(f.refused_source) + Number(f.refused_rate);
    assert.ok(refused >= 300 - 40, `the excess is refused and counted: ${JSON.stringify(f)}`);
    // The receiver's own count follows its sockets' close events.
    await waitFor(() => Number(figures(rig, receiver).connections) === open.length + 1, 30_000);
    assert.ok(!known.socket.destroyed, 'the known device kept its connection');
  } finally {
    await closeAll([...flood, known]);
    await rig.close();
  }
});

test('accepts per source are rate limited: a burst beyond the bucket is refused even below the connection cap', async () => {
  const rig = await startRig();
  const receiver = await rig.tcp({ max_connections_per_source: 1000, max_accepts_per_source_per_min: 30 });
  const port = portOf(receiver.address);
  const opened: TcpDevice[] = [];
  try {
    // Opened and closed one after another: never more than one open, so only the rate can refuse.
    const started = Date.now();
    for (let i = 0; i < 45; i++) {
      const d = await TcpDevice.connect(port, LOCAL, '127.0.0.3');
      opened.push(d);
      await d.close();
    }
    await waitFor(() => decided(rig, receiver) === 45, 30_000);
    const f = figures(rig, receiver);
    // 30 at once and one every 2 s after, however long a busy machine took for the 45.
    const refilled = Math.ceil((Date.now() - started) / 2000);
    assert.ok(
      Number(f.accepted) <= 30 + refilled,
      `30 at once (and 0.5/s after, ${refilled} here): ${f.accepted} accepted`,
    );
    assert.is(Number(f.accepted) + Number(f.refused_rate), 45);
  } finally {
    await closeAll(opened);
    await rig.close();
  }
});

test('the budget sheds strangers that sent nothing, the longest idle first, and keeps room for known devices', async () => {
  const rig = await startRig({ receiver: { connectionBudget: 40 } });
  const receiver = await rig.tcp({ max_connections_per_source: 1000, max_accepts_per_source_per_min: 10_000 });
  const port = portOf(receiver.address);
  const known = await TcpDevice.connect(port, LOCAL, LOCAL);
  const strangers: TcpDevice[] = [];
  const later: TcpDevice[] = [];
  try {
    known.send(message({ token: 'NULL', sequence: 1 }));
    assert.is(await known.nextText(), '"ACK"0001R1L1#1234[]');
    // 38 is where strangers stop (the last twentieth of 40 is for known devices).
    for (let i = 0; i < 60; i++) {
      strangers.push(await TcpDevice.connect(port, LOCAL, '127.0.0.2'));
      await sleep(2);
    }
    const open = (await settled(rig, receiver, 61, [known, ...strangers])).filter((d) => d !== known);
    assert.is(open.length, 37, 'strangers fill the budget up to its stranger ceiling (38, the known device included)');
    assert.ok(strangers[0]!.socket.destroyed && !strangers[59]!.socket.destroyed, 'the longest idle went first');
    // A known device's new connections use the room strangers cannot, then take a stranger's place.
    for (let i = 0; i < 4; i++) later.push(await TcpDevice.connect(port, LOCAL, LOCAL));
    for (const [i, d] of later.entries()) {
      d.send(message({ token: 'NULL', sequence: 10 + i }));
      assert.is(await d.nextText(), `"ACK"00${10 + i}R1L1#1234[]`);
    }
    const f = figures(rig, receiver);
    assert.ok(Number(f.connections) <= 40, `within the budget: ${f.connections}`);
    assert.is(f.budget_limit, 40);
    assert.ok(Number(f.shed) >= 60 - 37 + 2, `shed and counted: ${f.shed}`);
    assert.ok(!known.socket.destroyed, 'a connection that sent a valid frame is never shed');
  } finally {
    await closeAll([...strangers, ...later, known]);
    await rig.close();
  }
});

test('an address an object last reported from (stored) is known from the start: it is never a stranger', async () => {
  const rig = await startRig({ receiver: { connectionBudget: 10 } });
  // Stored before the receivers are built, as after a gateway restart.
  await rig.store.write.objects.upsertMain({
    account: '5555',
    receiverId: 1,
    receiverKind: 'tcp',
    remoteAddress: '127.0.0.5:40000',
    at: Date.now(),
  });
  const receiver = await rig.tcp({ max_connections_per_source: 1000, max_accepts_per_source_per_min: 10_000 });
  const port = portOf(receiver.address);
  const strangers: TcpDevice[] = [];
  const returning: TcpDevice[] = [];
  try {
    for (let i = 0; i < 12; i++) strangers.push(await TcpDevice.connect(port, LOCAL, '127.0.0.2'));
    assert.is((await settled(rig, receiver, 12, strangers)).length, 9, 'strangers stop at the ceiling (9 of 10)');
    // Silent (no frame yet), but from the stored address: the last slot, then a stranger's.
    for (let i = 0; i < 2; i++) returning.push(await TcpDevice.connect(port, LOCAL, '127.0.0.5'));
    await settled(rig, receiver, 14, [...strangers, ...returning]);
    assert.is(openOf(returning).length, 2);
    assert.is(openOf(strangers).length, 8, 'one stranger shed for the second');
    returning[0]!.send(message({ token: 'NULL', sequence: 5, account: '5555' }));
    assert.is(await returning[0]!.nextText(), '"ACK"0005R1L1#5555[]');
  } finally {
    await closeAll([...strangers, ...returning]);
    await rig.close();
  }
});

test('a connection that sends no valid frame gets the short first-frame timeout; a device that did keeps the long one', async () => {
  const rig = await startRig();
  const receiver = await rig.tcp({ first_frame_timeout_s: 1 });
  const port = portOf(receiver.address);
  const silent = await TcpDevice.connect(port, LOCAL, '127.0.0.2');
  const device = await TcpDevice.connect(port, LOCAL, LOCAL);
  try {
    device.send(message({ token: 'NULL', sequence: 1 }));
    assert.is(await device.nextText(), '"ACK"0001R1L1#1234[]');
    silent.send('garbage that is no frame');
    assert.ok(await silent.closedWithin(4000), 'closed after 1 s without a valid frame');
    assert.not.ok(await device.closedWithin(1500), 'the device that sent a valid frame stays');
    assert.is(figures(rig, receiver).first_frame_timeouts, 1);
    // A device link's welcomed HELLO counts as its first valid frame.
    const linked = await linkDevice(port, { uid: '00AB00FF01', account: '7001' });
    assert.not.ok(await linked.closedWithin(2000), 'a welcomed device link stays while silent');
    await linked.close();
  } finally {
    await closeAll([silent, device]);
    await rig.close();
  }
});

test.run();
