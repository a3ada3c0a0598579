/**
 * A stranger must not grow the object table without limit (docs/security.md "Admission", door
 * `new-object`): every valid frame from an account never seen used to create an object, over TCP or
 * spoofed UDP (50,000 frames from one connection: 52,005 objects, RSS 92 -> 203 MB, all reloaded at
 * every start). Now a source, a receiver and the gateway each have an allowance of new objects; a frame
 * beyond it is dropped unanswered, stores nothing and is reported (journaled rate-limited by the
 * gateway). A new real panel from another address is ACKed during and after the flood. Real sockets on
 * loopback (127.0.0.2/.3 are the strangers, .4/.5 new panels), a real store; 2,000 frames at most.
 */
import { createSocket } from 'node:dgram';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectRefusal } from '../../src/receivers/new-object-gate.js';
import { LOOPBACK, waitFor } from '../helpers/net.js';
import { TcpDevice } from './helpers/devices.js';
import { message, portOf, startRig } from './helpers/rig.js';

const ALLOWANCE = 50;

function account(i: number): string {
  return (0x100000 + i).toString(16).toUpperCase();
}

function objectCount(rig: Awaited<ReturnType<typeof startRig>>): number {
  return rig.store.objects.all().length;
}

test('fresh accounts from one TCP connection and one UDP source make at most their allowance of objects; new panels elsewhere are ACKed during and after', async () => {
  const rig = await startRig({
    admission: {
      new_objects_per_source_per_hour: ALLOWANCE,
      new_objects_per_receiver_per_hour: 1000,
      new_objects_per_hour: 1000,
    },
  });
  const refusals: ObjectRefusal[] = [];
  rig.runtime.newObjects.onRefused = (r) => refusals.push(r);
  const tcp = await rig.tcp({ id: 1 });
  const udp = await rig.udp({ id: 2 });
  const port = portOf(tcp.address);
  const flood = await TcpDevice.connect(port, LOOPBACK, '127.0.0.2');
  const spoofed = createSocket('udp4');
  await new Promise<void>((resolve) => spoofed.bind(0, '127.0.0.3', resolve));
  try {
    let acks = 0;
    flood.inbox.onFrame = (body) => {
      if (body.toString('latin1').startsWith('"ACK"')) acks++;
    };
    for (let i = 0; i < 1000; i++)
      flood.send(message({ token: 'NULL', sequence: (i % 9999) + 1, account: account(i) }));
    // During the flood: a new real panel from another address is answered at once.
    const during = await TcpDevice.connect(port, LOOPBACK, '127.0.0.4');
    during.send(message({ token: 'SIA-DCS', sequence: 7, account: 'BEEF01', data: '#BEEF01|Nri1/BA01' }));
    assert.is(await during.nextText(5000), '"ACK"0007R1L1#BEEF01[]');
    for (let i = 1000; i < 2000; i++)
      flood.send(message({ token: 'NULL', sequence: (i % 9999) + 1, account: account(i) }));
    for (let i = 0; i < 500; i++)
      spoofed.send(
        message({ token: 'NULL', sequence: 1, account: account(10_000 + i) }),
        portOf(udp.address),
        LOOPBACK,
      );
    await waitFor(() => tcp.counters.frames >= 2001 && udp.counters.frames >= 500, 20_000);
    await waitFor(() => rig.runtime.ingest.stats.items >= ALLOWANCE * 2 + 1, 5000);
    assert.is(acks, ALLOWANCE, 'the flood got an ACK for its allowance only');
    assert.is(tcp.counters.refusedNewObject, 2000 - ALLOWANCE);
    assert.is(udp.counters.refusedNewObject, 500 - ALLOWANCE);
    assert.is(objectCount(rig), ALLOWANCE * 2 + 1, 'the two allowances and the real panel');
    assert.is(rig.runtime.admission.counts.get('new-object', 'source-rate'), 2000 + 500 - 2 * ALLOWANCE);
    assert.equal(
      [refusals.length, refusals[0]],
      [2000 + 500 - 2 * ALLOWANCE, { receiverId: 1, source: '127.0.0.2', account: account(ALLOWANCE) }],
    );
    // Known accounts cost nothing: the flood's admitted accounts are still ACKed.
    flood.send(message({ token: 'NULL', sequence: 3, account: account(0) }));
    await waitFor(() => acks === ALLOWANCE + 1, 5000);
    // After the flood: another new panel elsewhere.
    const after = await TcpDevice.connect(port, LOOPBACK, '127.0.0.5');
    after.send(message({ token: 'NULL', sequence: 1, account: 'BEEF02' }));
    assert.is(await after.nextText(5000), '"ACK"0001R1L1#BEEF02[]');
    await during.close();
    await after.close();
  } finally {
    spoofed.close();
    await flood.close();
    await rig.close();
  }
});

test('a receiver and the gateway have allowances of their own: many sources cannot add up past them', async () => {
  const rig = await startRig({
    admission: { new_objects_per_source_per_hour: 40, new_objects_per_receiver_per_hour: 60, new_objects_per_hour: 90 },
  });
  const one = await rig.tcp({ id: 1 });
  const two = await rig.tcp({ id: 2 });
  const devices: TcpDevice[] = [];
  let n = 0;
  const flood = async (rx: typeof one, from: string): Promise<void> => {
    const d = await TcpDevice.connect(portOf(rx.address), LOOPBACK, from);
    devices.push(d);
    for (let i = 0; i < 40; i++) d.send(message({ token: 'NULL', sequence: i + 1, account: account(n++) }));
  };
  try {
    await flood(one, '127.0.0.2');
    await flood(one, '127.0.0.3');
    await waitFor(() => one.counters.frames >= 80, 10_000);
    await waitFor(() => one.counters.acks === 60, 5000);
    assert.is(rig.runtime.admission.counts.get('new-object', 'scope-rate'), 20, 'receiver 1 stops at its 60');
    await flood(two, '127.0.0.4');
    await flood(two, '127.0.0.5');
    await waitFor(() => two.counters.frames >= 80, 10_000);
    await waitFor(() => two.counters.acks === 30, 5000);
    assert.is(rig.runtime.admission.counts.get('new-object', 'total-rate'), 50, 'the gateway stops at its 90');
    assert.is(one.counters.acks + two.counters.acks, 90);
  } finally {
    for (const d of devices) await d.close();
    await rig.close();
  }
});

test.run();
