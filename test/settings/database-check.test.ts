/**
 * The database connection test against a REAL MariaDB server (test/helpers/mariadb.ts), and its
 * place in validation: dialled only when the patch touches an enabled database section.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkDatabaseConnection, resolveSqlPort } from '../../src/settings/database-check.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { freePort, LOOPBACK } from '../helpers/net.js';
import { startMariaDb, type MariaDb } from '../helpers/mariadb.js';
import { accepted, errorsOf, testEnv } from './support.js';

let db: MariaDb;
let silent: Server | undefined;
const sockets: Socket[] = [];

test.before(async () => {
  db = await startMariaDb();
  // A user allowed on a database that does not exist, so the server may say so.
  await db.exec("GRANT ALL ON vigil_missing.* TO 'vigil'@'127.0.0.1'; FLUSH PRIVILEGES;");
});

test.after(async () => {
  for (const s of sockets) s.destroy();
  silent?.close();
  await db?.stop();
});

const target = (extra: Record<string, unknown> = {}) => ({
  sqluser: 'vigil',
  sqlpass: 'vigilpass',
  sqlhost: '127.0.0.1',
  sqldatabase: 'vigil',
  sqlport: db.port,
  sql_tls_mode: 'disabled' as const,
  sql_tls_ca_file: '',
  ...extra,
});

/** Spelled out rather than imported: the text is part of the contract with the caller (docs/settings.md). */
const CONNECT_FAILED =
  'could not connect to a MySQL server at the configured address (the cause is in the gateway log)';

test('the right credentials pass the test', async () => {
  assert.is(await checkDatabaseConnection(target()), null);
});

test('a wrong password, a missing database and an unknown user are named without the password', async () => {
  const wrong = await checkDatabaseConnection(target({ sqlpass: 'not-the-password' }));
  assert.is(wrong, `cannot log in as 'vigil' on 127.0.0.1:${db.port}: Access denied`);
  assert.is(
    await checkDatabaseConnection(target({ sqldatabase: 'vigil_missing' })),
    "database 'vigil_missing' does not exist",
  );
  assert.is(
    await checkDatabaseConnection(target({ sqldatabase: 'mysql' })),
    "user 'vigil' has no access to database 'mysql' (or it does not exist)",
  );
  assert.is(
    await checkDatabaseConnection(target({ sqluser: 'nobody' })),
    `cannot log in as 'nobody' on 127.0.0.1:${db.port}: Access denied`,
  );
});

test('a closed port, a silent listener, a non-MySQL listener and an unknown host all get the same text', async () => {
  const closed = await freePort();
  silent = createServer((socket) => sockets.push(socket)); // accepts, never sends the handshake
  await new Promise<void>((resolve) => silent?.listen(0, LOOPBACK, resolve));
  const silentPort = (silent.address() as { port: number }).port;
  const web = createServer((socket) => {
    sockets.push(socket);
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => web.listen(0, LOOPBACK, resolve));
  const webPort = (web.address() as { port: number }).port;
  const ssh = createServer((socket) => {
    sockets.push(socket);
    socket.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n');
  });
  await new Promise<void>((resolve) => ssh.listen(0, LOOPBACK, resolve));
  const sshPort = (ssh.address() as { port: number }).port;
  try {
    const started = Date.now();
    const answers = [
      await checkDatabaseConnection(target({ sqlport: closed }), 400),
      await checkDatabaseConnection(target({ sqlport: webPort }), 400),
      await checkDatabaseConnection(target({ sqlport: sshPort }), 400),
      await checkDatabaseConnection(target({ sqlport: silentPort }), 400),
      await checkDatabaseConnection(target({ sqlhost: 'no-such-host.invalid' }), 400),
    ];
    assert.equal(answers, [CONNECT_FAILED, CONNECT_FAILED, CONNECT_FAILED, CONNECT_FAILED, CONNECT_FAILED]);
    // The silent one is bounded by the timeout.
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
  } finally {
    web.close();
    ssh.close();
  }
});

test('validation answers the same line for a closed port and a non-MySQL listener', async () => {
  const env = defaultValidationEnv({ hash: async () => 'unused' });
  const closed = await freePort();
  const web = createServer((socket) => {
    sockets.push(socket);
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
  });
  await new Promise<void>((resolve) => web.listen(0, LOOPBACK, resolve));
  const webPort = (web.address() as { port: number }).port;
  const section = { enabled: true, sqluser: 'vigil', sqlpass: 'vigilpass', sqlhost: '127.0.0.1', sqldatabase: 'vigil' };
  try {
    const expected = [`database: connection test failed: ${CONNECT_FAILED}`];
    assert.equal(await errorsOf({ database: { ...section, sqlport: closed } }, undefined, env), expected);
    assert.equal(await errorsOf({ database: { ...section, sqlport: webPort } }, undefined, env), expected);
  } finally {
    web.close();
  }
});

test('sqlport 0 means 3306', () => {
  assert.is(resolveSqlPort(0), 3306);
  assert.is(resolveSqlPort(3307), 3307);
});

test('validation dials the real server when the patch enables the database', async () => {
  const env = defaultValidationEnv({ hash: async () => 'unused' });
  const section = {
    enabled: true,
    sqluser: 'vigil',
    sqlpass: 'vigilpass',
    sqlhost: '127.0.0.1',
    sqldatabase: 'vigil',
    sqlport: db.port,
  };
  assert.equal(await errorsOf({ database: section }, undefined, env), []);
  const errors = await errorsOf({ database: { ...section, sqlpass: 'Wrong-Secret-Pass' } }, undefined, env);
  assert.equal(errors, [
    `database: connection test failed: cannot log in as 'vigil' on 127.0.0.1:${db.port}: Access denied`,
  ]);
});

test('the database is not dialled when the patch leaves it alone, or when a rule already failed', async () => {
  const env = testEnv({ databaseAnswer: 'should not be asked' });
  const current = await accepted({ database: { enabled: true, sqlpass: 'x' } }, undefined, testEnv());
  assert.equal(await errorsOf({ general: { instance_name: 'x' } }, current, env), []);
  // A new host needs the password typed again (database-credentials.test.ts), so it is sent along.
  assert.equal(await errorsOf({ database: { sqlhost: '', sqlpass: 'x' } }, current, env), [
    'database.sqlhost: must not be empty when the database is enabled',
  ]);
  assert.equal(await errorsOf({ database: { enabled: false } }, current, env), []);
  assert.equal(env.databaseChecked, []);
  assert.equal(await errorsOf({ database: { sqlhost: 'db.example', sqlpass: 'x' } }, current, env), [
    'database: connection test failed: should not be asked',
  ]);
  assert.equal(
    env.databaseChecked.map((d) => d.sqlhost),
    ['db.example'],
  );
});

test('several servers: the save passes when one accepts the login; when none does, the first reason is given', async () => {
  const env = defaultValidationEnv({ hash: async () => 'unused' });
  const closed = await freePort();
  const section = {
    enabled: true,
    sqluser: 'vigil',
    sqlpass: 'vigilpass',
    sqlhost: '127.0.0.1',
    sqldatabase: 'vigil',
    sqlport: closed,
    sql_servers: [{ host: '127.0.0.1', port: db.port }],
  };
  // A node down for maintenance does not block saving the section.
  assert.equal(await errorsOf({ database: section }, undefined, env), []);
  const none = await errorsOf(
    { database: { ...section, sql_servers: [{ host: '127.0.0.1', port: closed + 1 }] } },
    undefined,
    env,
  );
  assert.equal(none, [`database: connection test failed: ${CONNECT_FAILED}`]);
});

test.run();
