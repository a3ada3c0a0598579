/**
 * The whole pipeline in one Gateway: a device sends a DC-09 message over real TCP to a receiver, the ingest
 * journals it, the event-stored signal wakes the MLR2 output, and the automation peer gets the line. Checks the
 * wiring in src/main.ts and src/gateway/services.ts (outputs built from the settings, started before the receivers, woken by the bus).
 */
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import { LOOPBACK, freePort, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Mlr2Peer } from './helpers/mlr2-peer.js';

test('device -> TCP receiver -> journal -> MLR2 output -> automation peer, woken by the ingest bus', async () => {
  const dir = tempDir();
  const peer = new Mlr2Peer();
  await peer.listen();
  const gateway = new Gateway({ dataDir: dir.path, httpPort: 0, httpsPort: 0, host: LOOPBACK, logger: silentLogger });
  try {
    await gateway.start();
    const rxPort = await freePort();
    const result = await gateway.settings.update({
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
      outputs: [
        {
          id: 4,
          name: 'automation',
          type: 1,
          protocol: 'MLR2',
          identificator: `127.0.0.1:${peer.port}`,
          oid: 0xa1,
          receiver_number: 2,
          line_number: 5,
        },
      ],
    });
    assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
    await gateway.services.restart();
    await waitFor(() => gateway.health.get('out:4')?.state === 'ok', 3000);

    const device = connect({ host: LOOPBACK, port: rxPort });
    await new Promise<void>((resolve, reject) => device.once('connect', resolve).once('error', reject));
    const acks: string[] = [];
    device.on('data', (chunk: Buffer) => acks.push(chunk.toString('latin1')));
    const sentAt = performance.now();
    device.write(
      buildMessage({ token: 'ADM-CID', sequence: 1, receiver: 1, line: 1, account: '4321', data: '#4321|1130 01 015' }),
    );
    await waitFor(() => peer.events().includes('5025 184321E13001015'), 3000, 2);
    const arrivedAt = peer.lines.find((l) => l.text === '5025 184321E13001015')!.at;
    assert.ok(
      acks.some((a) => a.includes('"ACK"0001R1L1#4321[]')),
      'the device got its ACK',
    );
    // Woken by the bus, not by the 1 s fallback poll.
    assert.ok(arrivedAt - sentAt < 500, `took ${Math.round(arrivedAt - sentAt)} ms`);
    device.destroy();
    const status = gateway.health.get('out:4')!;
    assert.is(status.kind, 'output');
  } finally {
    await gateway.stop();
    await peer.close();
    dir.remove();
  }
});

test.run();
