/**
 * The whole serial path in one gateway: a legacy receiver's MLR2 feed on one COM line (a COM receiver) and automation
 * software on another (a serial MLR2 output), both real ptys. An event read on the first line is ACKed there after its
 * commit and delivered on the second; both ports are components of /api/status.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SerialPort } from 'serialport';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { encodeContactId } from '../../src/protocols/mlr2/codec.js';
import { freePort, waitFor } from '../helpers/net.js';
import { PtyPair } from '../helpers/pty-pair.js';
import { tempDir } from '../helpers/temp-dir.js';

function openPort(path: string, onData: (chunk: Buffer) => void): Promise<SerialPort> {
  return new Promise((resolve, reject) => {
    const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
    port.open((err) => (err ? reject(err) : resolve(port)));
    port.on('data', onData);
    port.on('error', () => undefined);
  });
}

const closePort = (port: SerialPort): Promise<void> =>
  new Promise((resolve) => (port.isOpen ? port.close(() => resolve()) : resolve()));

test('an MLR2 event in on one COM line is ACKed there and forwarded on the other', async () => {
  const dir = tempDir();
  const inbound = new PtyPair();
  const outbound = new PtyPair();
  await inbound.start();
  await outbound.start();
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  const legacyReplies: Buffer[] = [];
  const automationLines: string[] = [];
  let legacy: SerialPort | null = null;
  let automation: SerialPort | null = null;
  try {
    await gateway.start();
    automation = await openPort(outbound.b, (chunk) => {
      for (const text of chunk.toString('latin1').split('\x14').filter(Boolean)) automationLines.push(text);
      automation!.write(Buffer.from([0x06]));
    });
    const result = await gateway.settings.update({
      receivers: { com_receivers: [{ id: 5, name: 'legacy receiver', port_id: inbound.a, protocol: 'MLR2' }] },
      outputs: [
        {
          id: 1,
          name: 'automation',
          type: 3,
          protocol: 'MLR2',
          identificator: outbound.a,
          oid: 1,
          receiver_number: 2,
          line_number: 4,
        },
      ],
    });
    assert.equal(result, { ok: true, next: result.ok ? result.next : null });
    // The save's settings_changed event is a write command of its own: once it is in the journal, the new
    // output starts after it (at the journal head) and forwards only what follows.
    await waitFor(
      () => gateway.store.events.readAfter(0, 100).some((e) => e.protocol === 'INTERNAL' && e.code === '306'),
      5000,
    );
    await gateway.services.restart();
    await waitFor(
      () => gateway.health.get('rx:com:5')?.state === 'ok' && gateway.health.get('out:1')?.state === 'ok',
      5000,
    );
    legacy = await openPort(inbound.b, (chunk) => legacyReplies.push(chunk));
    const cid = encodeContactId(
      { receiver: 1, line: 1 },
      { account: '4321', qualifier: 'E', code: '130', group: '01', zone: '015' },
    );
    if (!cid.ok) throw new Error(cid.reason);
    legacy.write(cid.bytes);
    await waitFor(() => Buffer.concat(legacyReplies).length === 1, 5000);
    assert.equal(Buffer.concat(legacyReplies), Buffer.from([0x06]));
    await waitFor(() => automationLines.some((l) => l.startsWith('5')), 5000);
    assert.ok(automationLines.includes('5024 184321E13001015'), automationLines.join(' | '));
    assert.is(gateway.health.get(`serial:${inbound.a}`)?.state, 'ok');
    assert.is(gateway.health.get(`serial:${outbound.a}`)?.state, 'ok');
  } finally {
    if (legacy) await closePort(legacy);
    if (automation) await closePort(automation);
    await gateway.stop();
    await inbound.close();
    await outbound.close();
    dir.remove();
  }
});

test.run();
