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
  sqluser: 'vigil', sqlpass: 'vigilpass', sqlhost: '127.0.0.1', sqldatabase: 'vigil', sqlport: db.port, ...extra,
});

test('the right credentials pass the test', async () => {
  assert.is(await checkDatabaseConnection(target()), null);
});

test('a wrong password, a missing database and an unknown user are named without the password', async () => {
  const wrong = await checkDatabaseConnection(target({ sqlpass: 'not-the-password' }));
  assert.is(wrong, `cannot log in as 'vigil' on 127.0.0.1:${db.port}: Access denied`);
  assert.is(await checkDatabaseConnection(target({ sqldatabase: 'vigil_missing' })), "database 'vigil_missing' does not exist");
  assert.is(
    await checkDatabaseConnection(target({ sqldatabase: 'mysql' })),
    "user 'vigil' has no access to database 'mysql' (or it does not exist)",
  );
  assert.is(await checkDatabaseConnection(target({ sqluser: 'nobody' })), `cannot log in as 'nobody' on 127.0.0.1:${db.port}: Access denied`);
});

test('a closed port is refused and a silent server times out within the bound', async () => {
  const closed = await freePort();
  assert.is(await checkDatabaseConnection(target({ sqlport: closed })), `cannot reach 127.0.0.1:${closed}: connection refused`);
  silent = createServer((socket) => sockets.push(socket)); // accepts, never sends the handshake
  await new Promise<void>((resolve) => silent?.listen(0, LOOPBACK, resolve));
  const port = (silent.address() as { port: number }).port;
  const started = Date.now();
  assert.is(await checkDatabaseConnection(target({ sqlport: port }), 400), `cannot reach 127.0.0.1:${port}: timed out after 400 ms`);
  const took = Date.now() - started;
  assert.ok(took >= 350 && took < 2000, `took ${took} ms`);
});

test('sqlport 0 means 3306', () => {
  assert.is(resolveSqlPort(0), 3306);
  assert.is(resolveSqlPort(3307), 3307);
});

test('validation dials the real server when the patch enables the database', async () => {
  const env = defaultValidationEnv({ hash: async () => 'unused' });
  const section = { enabled: true, sqluser: 'vigil', sqlpass: 'vigilpass', sqlhost: '127.0.0.1', sqldatabase: 'vigil', sqlport: db.port };
  assert.equal(await errorsOf({ database: section }, undefined, env), []);
  const errors = await errorsOf({ database: { ...section, sqlpass: 'Wrong-Secret-Pass' } }, undefined, env);
  assert.equal(errors, [`database: connection test failed: cannot log in as 'vigil' on 127.0.0.1:${db.port}: Access denied`]);
});

test('the database is not dialled when the patch leaves it alone, or when a rule already failed', async () => {
  const env = testEnv({ databaseAnswer: 'should not be asked' });
  const current = await accepted({ database: { enabled: true, sqlpass: 'x' } }, undefined, testEnv());
  assert.equal(await errorsOf({ general: { instance_name: 'x' } }, current, env), []);
  assert.equal(await errorsOf({ database: { sqlhost: '' } }, current, env), ['database.sqlhost: must not be empty when the database is enabled']);
  assert.equal(await errorsOf({ database: { enabled: false } }, current, env), []);
  assert.equal(env.databaseChecked, []);
  assert.equal(await errorsOf({ database: { sqlhost: 'db.example' } }, current, env), ['database: connection test failed: should not be asked']);
  assert.equal(env.databaseChecked.map((d) => d.sqlhost), ['db.example']);
});

test.run();
