/** Group commit over real sockets: many devices' events share transactions (one fsync each). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/net.js';
import { TcpDevice, UdpDevice } from './helpers/devices.js';
import { message, portOf, startRig, type Rig } from './helpers/rig.js';

let rig: Rig;

test.before(async () => {
  // 300 fleets' accounts from one loopback address: more than one source's new-object allowance.
  rig = await startRig({ admission: { new_objects_per_source_per_hour: 10_000 } });
});

test.after(async () => {
  await rig.close();
});

test('200 concurrent TCP devices: 1,000 events, every one ACKed and stored, in far fewer transactions', async () => {
  const rx = await rig.tcp();
  const port = portOf(rx.address);
  const devices = await Promise.all(Array.from({ length: 200 }, () => TcpDevice.connect(port)));
  // All accepted before the first frame, so the devices start in step (as after a network outage).
  await waitFor(() => rx.counters.connections === 200, 3000);
  const flushes = rig.runtime.ingest.stats.flushes;
  const before = rig.events().length;
  await Promise.all(
    devices.map(async (d, i) => {
      const account = (0x1000 + i).toString(16).toUpperCase();
      for (let seq = 1; seq <= 5; seq++) {
        d.send(message({ token: 'SIA-DCS', sequence: seq, account, data: `#${account}|Nri1/BA0${seq}` }));
        assert.is(await d.nextText(5000), `"ACK"000${seq}R1L1#${account}[]`);
      }
    }),
  );
  const transactions = rig.runtime.ingest.stats.flushes - flushes;
  assert.is(rig.events().length - before, 1000);
  assert.ok(transactions <= 1000 / 20, `${transactions} transactions for 1000 events`);
  assert.is(rig.store.objects.findByAccount('10C7', 1).length, 1);
  await Promise.all(devices.map((d) => d.close()));
});

test('100 UDP devices sending at once share transactions too', async () => {
  const port = portOf((await rig.udp({ id: 9 })).address);
  const devices = await Promise.all(Array.from({ length: 100 }, () => UdpDevice.open()));
  const flushes = rig.runtime.ingest.stats.flushes;
  await Promise.all(
    devices.map(async (d, i) => {
      d.send(
        message({ token: 'ADM-CID', sequence: 1, account: String(5000 + i), data: `#${5000 + i}|1130 01 015` }),
        port,
      );
      assert.is(await d.nextText(5000), `"ACK"0001R1L1#${5000 + i}[]`);
    }),
  );
  const transactions = rig.runtime.ingest.stats.flushes - flushes;
  assert.ok(transactions <= 100 / 4, `${transactions} transactions for 100 datagrams`);
  await Promise.all(devices.map((d) => d.close()));
});

test.run();
