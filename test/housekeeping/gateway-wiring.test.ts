/**
 * The three services in the running gateway: retention always; the status output and the MySQL
 * sync only when enabled, and a settings change takes effect at restart-services.
 */
import { connect } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StatusDecoder, StatusEncoder } from '../../src/status-output/frame.js';
import { REMOTE_SCHEMA_VERSION } from '../../src/store/mysql-sync/remote-schema.js';
import { startMariaDb } from '../helpers/mariadb.js';
import { LOOPBACK, freePort, waitFor } from '../helpers/net.js';
import { startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';

test('by default only the retention job runs; the status output starts at restart-services once enabled', async () => {
  const dir = tempDir();
  const { gateway } = await startGateway(dir.path);
  try {
    assert.is(gateway.health.get('retention')?.state, 'ok');
    assert.is(gateway.health.get('status-output'), undefined);
    assert.is(gateway.health.get('mysql-sync'), undefined);
    const port = await freePort();
    const key = 'Sixteen-char-key';
    const saved = await gateway.settings.update({
      general: { instance_name: 'cabinet-7' },
      device_status_output: { enabled: true, port, encryption_enabled: true, encryption_key: key },
    });
    assert.ok(saved.ok);
    assert.is(gateway.health.get('status-output'), undefined, 'not before restart-services');
    await gateway.store.write.objects.upsertMain({
      account: '4321',
      receiverId: 3,
      receiverKind: 'tcp',
      at: Date.UTC(2026, 0, 1),
    });
    await gateway.services.restart();
    assert.is(gateway.health.get('status-output')?.state, 'ok');

    const socket = connect(port, LOOPBACK);
    const decoder = new StatusDecoder(key);
    const frames: Array<Record<string, unknown> | null> = [];
    socket.on('data', (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        // The output's challenge: the dashboard proves the key, then gets the feed (docs/status-output.md).
        if (frame?.type === 'challenge')
          socket.write(new StatusEncoder(key).encode({ type: 'auth', nonce: String(frame.nonce) }));
        else frames.push(frame);
      }
    });
    await waitFor(() => frames.length === 2);
    assert.equal([frames[0]?.type, frames[0]?.instance, frames[0]?.objects], ['hello', 'cabinet-7', 1]);
    assert.equal(
      [frames[1]?.type, frames[1]?.account, frames[1]?.receiver_id, frames[1]?.state],
      ['state', '4321', 3, 'online'],
    );
    socket.destroy();
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test('enabling the database starts the MySQL sync at restart-services, and it mirrors the journal', async () => {
  const mariadb = await startMariaDb();
  const dir = tempDir();
  const { gateway } = await startGateway(dir.path);
  try {
    const saved = await gateway.settings.update({
      database: {
        enabled: true,
        sqlhost: mariadb.host,
        sqlport: mariadb.port,
        sqluser: 'vigil',
        sqlpass: 'vigilpass',
        sqldatabase: 'vigil',
      },
    });
    assert.ok(saved.ok, saved.ok ? '' : saved.errors.join('; '));
    await gateway.services.restart();
    await waitFor(() => gateway.health.get('mysql-sync')?.state === 'ok', 10_000);
    const [stored] = await gateway.store.write.events.append([sampleEvent({ text: 'wired' })]);
    await waitFor(
      async () => (await mariadb.exec(`SELECT text FROM vigil.events WHERE id = ${stored!.id}`)) === 'wired\n',
      10_000,
    );
    // The whole journal goes, the gateway's internal events included.
    const remoteCount = async (): Promise<number> =>
      Number((await mariadb.exec('SELECT COUNT(*) FROM vigil.events')).trim());
    await waitFor(async () => (await remoteCount()) === gateway.store.events.countAfter(0), 10_000);
    assert.ok((await remoteCount()) >= 1);
    assert.is(
      (await mariadb.exec("SELECT value FROM vigil.vigil_sync WHERE name = 'schema_version'")).trim(),
      String(REMOTE_SCHEMA_VERSION),
    );
  } finally {
    await gateway.stop();
    dir.remove();
    await mariadb.stop();
  }
});

test.run();
