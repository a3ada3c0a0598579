/**
 * One topology (docs/writer.md §One topology): the receiver test rig opens the store as the
 * gateway does, with its writer thread, so the frames a test sends are committed by that thread and
 * the store's own connection only reads. Real sockets, a real SQLite file, a real worker thread.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TcpDevice } from '../receivers/helpers/devices.js';
import { message, portOf, startRig } from '../receivers/helpers/rig.js';

test("the receiver rig's frames are committed by the writer thread; the store's connection cannot write", async () => {
  const rig = await startRig();
  try {
    const rx = await rig.tcp();
    const device = await TcpDevice.connect(portOf(rx.address));
    device.send(message({ token: 'SIA-DCS', account: '7070', data: '#7070|Nri1/BA01' }));
    assert.is(await device.nextText(5000), '"ACK"0001R1L1#7070[]');
    await device.close();
    assert.equal(
      rig.events().map((e) => [e.account, e.code]),
      [['7070', 'BA']],
    );
    assert.is(rig.runtime.ingest.writerProbe.liveness().commits >= 1, true, 'the writer thread committed it');
    assert.is(
      'transaction' in rig.store,
      false,
      'no transaction runs on the store itself: the writer thread owns them all',
    );
  } finally {
    await rig.close();
  }
});

test.run();
