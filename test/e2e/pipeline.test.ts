/**
 * Issue 4, "Done means": simulator -> receiver -> journal -> MLR2 peer and DC-09 peer, byte-exact.
 * One in-process Gateway, a real TCP receiver, two real outputs to test peers on 127.0.0.1 that
 * speak the real formats (Sur-Gard MLR2 lines ACKed with 0x06; a DC-09 receiver built on Vigil's
 * own codec answering ACK), and the device simulator as the panels.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { resolveSimOptions, Simulator } from '../../src/sim/index.js';
import { LOOPBACK, freePort, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Dc09Peer } from '../outputs/helpers/dc09-peer.js';
import { Mlr2Peer } from '../outputs/helpers/mlr2-peer.js';

const DEVICES = 3;
const TOTAL_EVENTS = 12;

test('simulated panels reach both automation peers, every event once at least, in device order, byte for byte', async () => {
  const dir = tempDir();
  const mlr2 = new Mlr2Peer();
  await mlr2.listen();
  const dc09 = new Dc09Peer({ transport: 'tcp', now: () => Date.now() });
  await dc09.listen();
  const gateway = new Gateway({ dataDir: dir.path, httpPort: 0, httpsPort: 0, host: LOOPBACK, logger: silentLogger });
  try {
    await gateway.start();
    const rxPort = await freePort();
    const result = await gateway.settings.update({
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
      outputs: [
        {
          id: 4,
          name: 'mlr2',
          type: 1,
          protocol: 'MLR2',
          identificator: `${LOOPBACK}:${mlr2.port}`,
          oid: 0xa1,
          receiver_number: 2,
          line_number: 5,
        },
        {
          id: 5,
          name: 'dc09',
          type: 1,
          protocol: 'SIA-DC09',
          identificator: `${LOOPBACK}:${dc09.port}`,
          oid: 0xa2,
          receiver_number: 0x12,
          line_number: 3,
        },
      ],
    });
    assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
    await gateway.services.restart();
    await waitFor(
      () => gateway.health.get('out:4')?.state === 'ok' && gateway.health.get('out:5')?.state === 'ok',
      5000,
    );

    const acked: { account: string; data: string }[] = [];
    const sim = new Simulator(
      resolveSimOptions({
        port: rxPort,
        devices: DEVICES,
        accountBase: '2000',
        token: 'ADM-CID',
        saturate: true,
        maxEvents: TOTAL_EVENTS,
        durationMs: 5000,
        drainMs: 1000,
        link: { hello: false },
      }),
      { logger: silentLogger, onAck: (r) => acked.push({ account: r.account, data: r.data }) },
    );
    const summary = await sim.run();
    assert.is(summary.events_acked, TOTAL_EVENTS, JSON.stringify(summary));
    assert.is(acked.length, TOTAL_EVENTS);

    // What each ACKed event must look like on each wire.
    const lineOf = ({ account, data }: { account: string; data: string }): string => {
      // data "#2000|1130 01 001": qualifier digit, event 130, group 01, zone 001 (SIA DC-05).
      const [, cid = ''] = data.split('|');
      const [q = '', group = '', zone = ''] = [cid.slice(0, 1), cid.slice(5, 7), cid.slice(8, 11)];
      // MLR2 Contact ID line (docs/outputs.md): 5 RR L s 18 AAAA Q XYZ GG CCC.
      return `5025 18${account}${q === '1' ? 'E' : 'R'}130${group}${zone}`;
    };
    const expectedLines = acked.map(lineOf);
    const expectedData = acked.map((a) => a.data);
    await waitFor(() => expectedLines.every((l) => mlr2.events().includes(l)), 5000).catch(() => {
      throw new Error(`MLR2 peer got ${JSON.stringify(mlr2.events())}, expected ${JSON.stringify(expectedLines)}`);
    });
    // A literal, independent of lineOf: device 0's first event, burglary alarm zone 001.
    assert.ok(mlr2.events().includes('5025 182000E13001001'), 'the exact MLR2 line of the first event');
    await dc09.waitForFrames(TOTAL_EVENTS, 5000);

    // Each device's events keep their order on both outputs (the journal order of one connection).
    for (let d = 0; d < DEVICES; d++) {
      const account = (0x2000 + d).toString(16).toUpperCase();
      const mine = acked.filter((a) => a.account === account);
      assert.equal(
        mlr2.distinctEvents().filter((l) => l.includes(`18${account}`)),
        mine.map(lineOf),
      );
      const frames = dc09.frames.map((f) => f.raw.toString('latin1')).filter((b) => b.includes(`#${account}[`));
      assert.equal(
        frames.map((b) => b.slice(b.indexOf('[') + 1, b.indexOf(']'))),
        mine.map((a) => a.data),
      );
    }
    const bodies = dc09.frames.map((f) => f.raw.toString('latin1'));
    for (const data of expectedData) {
      const frame = bodies.find((b) => b.includes(`[${data}]`));
      assert.ok(frame, `DC-09 peer never got ${data}`);
      const account = data.slice(1, 5);
      // "ADM-CID" seq R12 L3 #acct [data] _timestamp (SIA DC-09 §5.5.1), CRC and length checked by the peer's framer.
      assert.match(
        frame!,
        new RegExp(
          `^\\n[0-9A-F]{4}0[0-9A-F]{3}"ADM-CID"\\d{4}R12L3#${account}\\[${data.replace('|', '\\|')}\\]_\\d\\d:\\d\\d:\\d\\d,\\d\\d-\\d\\d-\\d{4}\\r$`,
        ),
      );
    }
    assert.ok(dc09.frames.every((f) => f.decision.action === 'ack'));
  } finally {
    await gateway.stop();
    await mlr2.close();
    await dc09.close();
    dir.remove();
  }
});

test.run();
