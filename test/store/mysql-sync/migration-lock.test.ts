/**
 * The mirror's migration lock against a REAL MariaDB (test/helpers/mariadb.ts): installations that
 * meet a mirror behind at once migrate it one at a time (each step runs once); a lock left by a
 * holder that died is taken over once stale; a live holder makes the others wait, then give up
 * naming it; a current mirror sends no DDL.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import { MIGRATION_LOCK_KEY } from '../../../src/store/mysql-sync/migration-lock.js';
import { openRemoteDb, type RemoteDb } from '../../../src/store/mysql-sync/remote-db.js';
import { migrateRemote, type RemoteMigration } from '../../../src/store/mysql-sync/remote-schema.js';
import { sleep } from '../../helpers/net.js';
import { startMariaDb, type MariaDb } from '../../helpers/mariadb.js';

let server: MariaDb;
let databases = 0;
const open: RemoteDb[] = [];

test.before(async () => {
  server = await startMariaDb();
});
test.after(async () => {
  await server?.stop();
});
test.after.each(async () => {
  for (const db of open.splice(0)) await db.close();
});

async function freshDatabase(): Promise<string> {
  const name = `lock${++databases}`;
  await server.exec(`CREATE DATABASE ${name}; GRANT ALL ON ${name}.* TO 'vigil'@'127.0.0.1';`);
  return name;
}

async function connect(database: string): Promise<RemoteDb> {
  const db = await openRemoteDb(
    {
      sqlhost: '127.0.0.1',
      sqlport: server.port,
      sqluser: 'vigil',
      sqlpass: 'vigilpass',
      sqldatabase: database,
      sql_tls_mode: 'disabled' as const,
      sql_tls_ca_file: '',
    },
    { connectTimeoutMs: 2000, queryTimeoutMs: 5000, onBroken: () => {} },
  );
  open.push(db);
  return db;
}

/** Two steps that count their runs and take a while, so installations that start together overlap. */
function countedMigrations(runs: number[]): RemoteMigration[] {
  return [1, 2].map((version) => ({
    version,
    name: `step ${version}`,
    statements: [],
    run: async () => {
      runs[version - 1]! += 1;
      await sleep(300);
    },
  }));
}

const FAST = { waitMs: 10_000, staleMs: 60_000, pollMs: 50 };

test('three installations meeting a mirror behind at once: each step runs once, all see it current', async () => {
  const database = await freshDatabase();
  const dbs = await Promise.all([1, 2, 3].map(() => connect(database)));
  const runs = [0, 0];
  const migrations = countedMigrations(runs);
  await Promise.all(dbs.map((db, i) => migrateRemote(db, migrations, { ...FAST, holder: `box-${i}` })));
  assert.equal(runs, [1, 1]);
  const [row] = (await dbs[0]!.query("SELECT value FROM vigil_sync WHERE name = 'schema_version'")) as Array<{
    value: string;
  }>;
  assert.is(row?.value, '2');
  assert.equal(await dbs[0]!.query('SELECT value FROM vigil_sync WHERE name = ?', [MIGRATION_LOCK_KEY]), []);
  // Current now: another start runs nothing and takes no lock.
  assert.is(await migrateRemote(dbs[1]!, migrations, { ...FAST, holder: 'box-1' }), 2);
  assert.equal(runs, [1, 1]);
});

test('a lock left by a holder that died is taken over once stale; a live one makes others wait, then give up naming it', async () => {
  const database = await freshDatabase();
  const db = await connect(database);
  const runs = [0, 0];
  const migrations = countedMigrations(runs);
  await migrateRemote(db, [], { ...FAST, holder: 'setup' }); // the sync table only
  await db.query('INSERT INTO vigil_sync (name, value) VALUES (?, ?)', [MIGRATION_LOCK_KEY, 'dead-box 1000']);
  assert.is(await migrateRemote(db, migrations, { ...FAST, holder: 'heir' }), 0);
  assert.equal(runs, [1, 1]);

  // A connection of this installation broke mid-migration: its row is its own, taken back at once.
  const own = await connect(await freshDatabase());
  await migrateRemote(own, [], { ...FAST, holder: 'setup' });
  await own.query('INSERT INTO vigil_sync (name, value) VALUES (?, ?)', [MIGRATION_LOCK_KEY, `heir ${Date.now()}`]);
  assert.is(await migrateRemote(own, migrations, { ...FAST, waitMs: 0, holder: 'heir' }), 0);
  assert.equal(runs, [2, 2]);

  const behind = await freshDatabase();
  const other = await connect(behind);
  await migrateRemote(other, [], { ...FAST, holder: 'setup' });
  await other.query('INSERT INTO vigil_sync (name, value) VALUES (?, ?)', [
    MIGRATION_LOCK_KEY,
    `busy-box ${Date.now()}`,
  ]);
  const started = Date.now();
  let error: unknown;
  try {
    await migrateRemote(other, countedMigrations([0, 0]), { ...FAST, waitMs: 600, holder: 'waiter' });
  } catch (err) {
    error = err;
  }
  assert.ok(isVigilError(error) && error.code === 'CONFLICT', String(error));
  assert.match((error as Error).message, /installation busy-box is migrating the MySQL mirror/);
  assert.ok(Date.now() - started >= 600, 'gave up before its wait was over');
});

test.run();
