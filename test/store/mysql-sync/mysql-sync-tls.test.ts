/**
 * Issue #28.4 against a REAL MariaDB with TLS (test/helpers/mariadb.ts with ssl_cert/ssl_key made
 * by openssl in a temp dir, test/helpers/tls-files.ts) and a hostile server (rogue-mysql.ts):
 * - sql_tls_mode "required" reaches an account that REQUIRE SSL (so the login went over TLS);
 * - "verify" connects with the right CA and never logs in against a wrong one, nor to a server
 *   whose certificate (from the right CA) names another address;
 * - with TLS disabled, a server that asks for the password itself never gets it.
 * Both the sync adapter and the connection test of the settings are driven.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../../src/core/logger.js';
import { checkDatabaseConnection } from '../../../src/settings/database-check.js';
import { MysqlSync, type MysqlSyncOptions } from '../../../src/store/mysql-sync/mysql-sync.js';
import { sleep, waitFor } from '../../helpers/net.js';
import { startMariaDb, type MariaDb } from '../../helpers/mariadb.js';
import { startRogueMysql } from '../../helpers/rogue-mysql.js';
import { makeTlsFiles, type TlsFiles } from '../../helpers/tls-files.js';
import { sampleEvent, startStore, type StoreFixture } from '../helpers/store-fixture.js';

const FAST: MysqlSyncOptions = {
  intervalMs: 20,
  snapshotIntervalMs: 0,
  batchSize: 50,
  minBackoffMs: 50,
  maxBackoffMs: 300,
  connectTimeoutMs: 2000,
  queryTimeoutMs: 5000,
};
/** Spelled out: the texts are what a caller of the API reads (docs/settings.md §database). */
const CONNECT_FAILED =
  'could not connect to a MySQL server at the configured address (the cause is in the gateway log)';
const TLS_PASS = 'Tls-Only-Pass-7';

let server: MariaDb;
let tls: TlsFiles;

test.before(async () => {
  tls = makeTlsFiles();
  server = await startMariaDb({ args: [`--ssl-cert=${tls.serverCert}`, `--ssl-key=${tls.serverKey}`] });
  // An account the server lets in only over TLS: a login that succeeds proves the channel.
  await server.exec(
    `CREATE DATABASE tlsdb; CREATE USER 'tlsonly'@'127.0.0.1' IDENTIFIED BY '${TLS_PASS}' REQUIRE SSL; ` +
      "GRANT ALL ON tlsdb.* TO 'tlsonly'@'127.0.0.1'; FLUSH PRIVILEGES;",
  );
});

test.after(async () => {
  await server?.stop();
  tls?.remove();
});

type Mode = 'disabled' | 'required' | 'verify';

function target(mode: Mode, caFile = '', port = server.port) {
  return {
    sqlhost: '127.0.0.1',
    sqlport: port,
    sqluser: 'tlsonly',
    sqlpass: TLS_PASS,
    sqldatabase: 'tlsdb',
    sql_tls_mode: mode,
    sql_tls_ca_file: caFile,
  };
}

/** Each sync gets an empty tlsdb: a mirror belongs to one installation, and every store here is a new one. */
async function withSync(
  t: ReturnType<typeof target>,
  body: (f: StoreFixture, sync: MysqlSync) => Promise<void>,
): Promise<void> {
  await server.exec('DROP DATABASE IF EXISTS tlsdb; CREATE DATABASE tlsdb;');
  const f = await startStore();
  const sync = new MysqlSync({
    store: f.store,
    target: t,
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    options: FAST,
  });
  try {
    await sync.start();
    await body(f, sync);
  } finally {
    await sync.stop();
    await f.cleanup();
  }
}

async function remoteEventCount(): Promise<number> {
  const out = await server.exec(
    "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'tlsdb' AND table_name = 'events'",
  );
  if (out.trim() === '0') return 0;
  return Number((await server.exec('SELECT COUNT(*) FROM tlsdb.events')).trim());
}

test('the connection test: required and verify (right CA) log in over TLS; verify with a wrong CA gets the one text', async () => {
  assert.is(await checkDatabaseConnection(target('required')), null);
  assert.is(await checkDatabaseConnection(target('verify', tls.caCert)), null);
  assert.is(await checkDatabaseConnection(target('verify', tls.wrongCaCert)), CONNECT_FAILED);
  // The system CAs do not know the test CA either.
  assert.is(await checkDatabaseConnection(target('verify', '')), CONNECT_FAILED);
  // Without TLS the server itself refuses the account: the REQUIRE SSL proof above is meaningful.
  assert.match((await checkDatabaseConnection(target('disabled'))) ?? '', /Access denied/);
});

test('verify refuses a certificate from the right CA that names another address', async () => {
  const other = await startMariaDb({ args: [`--ssl-cert=${tls.otherNameCert}`, `--ssl-key=${tls.otherNameKey}`] });
  try {
    const t = {
      ...target('verify', tls.caCert, other.port),
      sqluser: 'vigil',
      sqlpass: 'vigilpass',
      sqldatabase: 'vigil',
    };
    assert.is(await checkDatabaseConnection(t), CONNECT_FAILED);
    // The same server with "required" (no identity check) is reachable: the refusal was the name.
    assert.is(await checkDatabaseConnection({ ...t, sql_tls_mode: 'required' }), null);
  } finally {
    await other.stop();
  }
});

test('with sql_tls_mode required the sync logs in over TLS and replicates', async () => {
  await withSync(target('required'), async (f) => {
    await f.store.write.events.append([sampleEvent({ text: 'over-tls' })]);
    await waitFor(() => f.health.get('mysql-sync')?.state === 'ok', 15_000);
    await waitFor(async () => (await remoteEventCount()) >= 1, 15_000, 200);
  });
});

test('verify connects with the right CA and never logs in against a wrong one', async () => {
  await withSync(target('verify', tls.caCert), async (f) => {
    await waitFor(() => f.health.get('mysql-sync')?.state === 'ok', 15_000);
  });
  const before = Number((await server.exec("SHOW GLOBAL STATUS LIKE 'Connections'")).split('\t')[1]);
  await withSync(target('verify', tls.wrongCaCert), async (f) => {
    await f.store.write.events.append([sampleEvent({ text: 'must-not-arrive' })]);
    await waitFor(() => (f.health.get('mysql-sync')?.detail ?? '').startsWith(`${CONNECT_FAILED}; retrying`), 15_000);
    await sleep(300);
    assert.is(f.health.get('mysql-sync')?.state, 'degraded');
    assert.is(f.health.get('mysql-sync')?.metrics.connected, false);
  });
  assert.is(await remoteEventCount(), 0);
  // TCP connections were made (and cut in the TLS handshake by the client), yet nothing arrived.
  const after = Number((await server.exec("SHOW GLOBAL STATUS LIKE 'Connections'")).split('\t')[1]);
  assert.ok(after > before, 'the sync did try');
});

test('TLS disabled: a server that asks for the password itself never gets it, from the sync or the connection test', async () => {
  const rogue = await startRogueMysql();
  try {
    const t = { ...target('disabled', '', rogue.port), sqlpass: 'Rogue-Wants-This-1' };
    await withSync(t, async (f) => {
      await waitFor(() => /sql_tls_mode/.test(f.health.get('mysql-sync')?.detail ?? ''), 10_000);
      assert.match(
        f.health.get('mysql-sync')?.detail ?? '',
        /^the server asks for the password itself, which Vigil sends only over TLS/,
      );
    });
    assert.match((await checkDatabaseConnection(t)) ?? '', /^the server asks for the password itself/);
    assert.ok(rogue.received.length > 0, 'the rogue was dialled');
    assert.is(rogue.keyRequested(), false);
    assert.is(rogue.recovered(), null);
    for (const payload of rogue.received)
      assert.not.ok(payload.includes(Buffer.from('Rogue-Wants-This-1')), 'password in clear');
  } finally {
    await rogue.close();
  }
});

test.run();
