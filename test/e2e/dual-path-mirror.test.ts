/**
 * Dual path end to end (issue #32): two whole gateways, each with its own SQLite file, a real
 * DC-09 TCP receiver and the MySQL sync to ONE mirror on a real MariaDB, are fed the same DC-09
 * frames (as a dual-path panel sends each signal over both paths). The `signals` view folds each
 * timestamped frame into one signal listing both boxes; a frame without a timestamp stays unfolded.
 */
import { connect } from 'node:net';
import { createConnection } from 'mysql2/promise';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import { startMariaDb, type MariaDb } from '../helpers/mariadb.js';
import { freePort, LOOPBACK, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: MariaDb;
test.before(async () => {
  server = await startMariaDb();
});
test.after(async () => {
  await server?.stop();
});

/** Sends the frames one by one on one connection, each after the previous ACK. */
async function sendAll(port: number, frames: readonly Buffer[]): Promise<void> {
  const socket = connect({ host: LOOPBACK, port });
  const framer = new Dc09Framer();
  let acked = 0;
  socket.on('data', (chunk: Buffer) => {
    for (const item of framer.push(chunk)) if (item.kind === 'frame' && item.body.includes('"ACK"')) acked++;
  });
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    for (const [i, frame] of frames.entries()) {
      socket.write(frame);
      await waitFor(() => acked > i, 5000);
    }
  } finally {
    socket.destroy();
  }
}

async function gatewayOn(name: string): Promise<{ gateway: Gateway; rx: number; remove(): void }> {
  const dir = tempDir('vigil-dual-');
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: 0,
    host: LOOPBACK,
    logger: silentLogger,
    announce: () => undefined,
  });
  await gateway.start();
  const rx = await freePort();
  const result = await gateway.settings.update({
    general: { instance_name: name },
    receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rx, bind_address: LOOPBACK }], udp_receivers: [] },
    database: {
      enabled: true,
      sqlhost: '127.0.0.1',
      sqlport: server.port,
      sqluser: 'vigil',
      sqlpass: 'vigilpass',
      sqldatabase: 'vigil',
    },
  });
  assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
  await gateway.services.restart();
  return { gateway, rx, remove: dir.remove };
}

test('two gateways fed the same DC-09 frames: one folded signal per timestamped frame, listing both boxes', async () => {
  const a = await gatewayOn('path-a');
  const b = await gatewayOn('path-b');
  const conn = await createConnection({
    host: '127.0.0.1',
    port: server.port,
    user: 'vigil',
    password: 'vigilpass',
    database: 'vigil',
    dateStrings: true,
  });
  try {
    const now = Date.now() - (Date.now() % 1000);
    const frame = (sequence: number, zone: string, timestamp: number | null): Buffer =>
      buildMessage({
        token: 'ADM-CID',
        sequence,
        receiver: 1,
        line: 1,
        account: '4321',
        data: `#4321|1130 01 ${zone}`,
        timestamp,
      });
    const frames = [
      frame(1, '001', now - 3000),
      frame(2, '002', now - 2000),
      frame(3, '003', now - 1000),
      frame(4, '004', null),
    ];
    await sendAll(a.rx, frames);
    await sendAll(b.rx, frames);
    const count = async (sql: string): Promise<number> => {
      try {
        const [rows] = await conn.query(sql);
        return Number((rows as Array<{ n: number }>)[0]?.n ?? 0);
      } catch {
        return -1;
      }
    };
    await waitFor(
      async () => (await count("SELECT COUNT(*) AS n FROM events WHERE account = '4321'")) === 8,
      15_000,
      100,
    );
    await waitFor(
      async () => (await count("SELECT COUNT(*) AS n FROM installations WHERE name LIKE 'path-%'")) === 2,
      5000,
    );
    const [rows] = await conn.query(
      "SELECT sequence, zone_no, copies, box_count, box_names FROM signals WHERE account = '4321' ORDER BY sequence, box_names",
    );
    const names = (rows as Array<{ box_names: string }>)[0]!.box_names;
    assert.equal(names.split(',').sort(), ['path-a', 'path-b']);
    assert.equal(
      (rows as Array<Record<string, unknown>>).map((r) => [
        r.sequence,
        r.zone_no,
        Number(r.copies),
        Number(r.box_count),
        r.box_names,
      ]),
      [
        ['0001', '001', 2, 2, names],
        ['0002', '002', 2, 2, names],
        ['0003', '003', 2, 2, names],
        ['0004', '004', 1, 1, 'path-a'],
        ['0004', '004', 1, 1, 'path-b'],
      ],
    );
  } finally {
    await conn.end();
    for (const g of [a, b]) {
      await g.gateway.stop();
      g.remove();
    }
  }
});

test.run();
