/**
 * One mirror, many installations, against a REAL MariaDB (test/helpers/mariadb.ts): several
 * in-process gateways (each its own SQLite file) write into one schema without key collisions;
 * a version-1 mirror is upgraded in place without re-sending; a retired installation is refused;
 * the sync fails over to the next configured server; dual-path copies fold in the `signals` view.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createConnection, type Connection } from 'mysql2/promise';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../../src/core/logger.js';
import { MysqlSync, type MysqlSyncOptions } from '../../../src/store/mysql-sync/mysql-sync.js';
import { openRemoteDb } from '../../../src/store/mysql-sync/remote-db.js';
import { EVENT_COLUMNS, eventRow, upsertSql } from '../../../src/store/mysql-sync/remote-rows.js';
import { migrateRemote, REMOTE_MIGRATIONS } from '../../../src/store/mysql-sync/remote-schema.js';
import type { FleetReport } from '../../../src/store/mysql-sync/remote-schema-v3.js';
import { EVENTS_CURSOR_KEY, INSTANCE_ID_KEY } from '../../../src/store/mysql-sync/replicate.js';
import type { SqlServer } from '../../../src/settings/database-servers.js';
import type { NewEvent } from '../../../src/core/event-row.js';
import { freePort, waitFor } from '../../helpers/net.js';
import { startMariaDb, type MariaDb } from '../../helpers/mariadb.js';
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

let server: MariaDb;
let databases = 0;
const live: Array<{ sync: MysqlSync; f: StoreFixture }> = [];

test.before(async () => {
  server = await startMariaDb();
});
test.after(async () => {
  await server?.stop();
});
test.after.each(async () => {
  for (const { sync, f } of live.splice(0)) {
    await sync.stop();
    await f.cleanup();
  }
});

async function freshDatabase(): Promise<string> {
  const name = `multi${++databases}`;
  await server.exec(`CREATE DATABASE ${name}; GRANT ALL ON ${name}.* TO 'vigil'@'127.0.0.1';`);
  return name;
}

function target(database: string, servers: SqlServer[] = [], first = server.port) {
  return {
    sqlhost: '127.0.0.1',
    sqlport: first,
    sqluser: 'vigil',
    sqlpass: 'vigilpass',
    sqldatabase: database,
    sql_tls_mode: 'disabled' as const,
    sql_tls_ca_file: '',
    sql_servers: servers,
  };
}

/** A gateway's store and its sync (not started). */
async function gateway(
  database: string,
  name: string,
  t = target(database),
  fleetReport?: () => FleetReport | null,
): Promise<{ f: StoreFixture; sync: MysqlSync }> {
  const f = await startStore();
  const sync = new MysqlSync({
    store: f.store,
    target: t,
    installationName: name,
    ...(fleetReport ? { fleetReport } : {}),
    version: '9.9.9',
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    options: FAST,
  });
  live.push({ sync, f });
  return { f, sync };
}

async function reader(database: string): Promise<Connection> {
  return createConnection({
    host: '127.0.0.1',
    port: server.port,
    user: 'vigil',
    password: 'vigilpass',
    database,
    dateStrings: true,
  });
}

async function query<T>(database: string, sql: string): Promise<T[]> {
  const conn = await reader(database);
  try {
    const [rows] = await conn.query(sql);
    return rows as T[];
  } finally {
    await conn.end();
  }
}

async function count(database: string, sql: string): Promise<number> {
  try {
    const [row] = await query<{ n: number }>(database, sql);
    return Number(row?.n ?? 0);
  } catch (err) {
    if ((err as { code?: string }).code === 'ER_NO_SUCH_TABLE') return 0;
    throw err;
  }
}

async function append(f: StoreFixture, count: number, tag: string, extra: Partial<NewEvent> = {}): Promise<void> {
  await f.store.write.events.append(
    Array.from({ length: count }, (_, i) =>
      sampleEvent({ text: `${tag}:${i}`, sequence: String(i % 10000).padStart(4, '0'), ...extra }),
    ),
  );
}

test('three gateways sync into one schema: same local ids, no collisions, each its own rows', async () => {
  const database = await freshDatabase();
  const boxes = await Promise.all(['north', 'south', 'east'].map((name) => gateway(database, name)));
  for (const [i, { f }] of boxes.entries()) {
    await f.store.write.objects.upsertMain({
      account: `10${i}`,
      receiverId: 1,
      receiverKind: 'tcp',
      at: Date.UTC(2026, 0, 1),
    });
    await f.store.write.overrides.set({
      matchKind: 'oid',
      matchValue: '001234',
      relatedOid: null,
      overrideOid: `B${i}`,
    });
    await append(f, 120 + i * 10, `box${i}`);
  }
  await Promise.all(boxes.map(({ sync }) => sync.start()));
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 120 + 130 + 140, 15_000);
  for (const [i, { f }] of boxes.entries()) {
    const id = f.store.meta.get(INSTANCE_ID_KEY)!;
    const ids = await query<{ id: number; text: string }>(
      database,
      `SELECT id, text FROM events WHERE installation = '${id}' ORDER BY id`,
    );
    // Every box has ids 1..n of its own: the same ids as the others', kept apart by installation.
    assert.equal(
      ids.map((r) => Number(r.id)),
      Array.from({ length: 120 + i * 10 }, (_, k) => k + 1),
    );
    assert.ok(ids.every((r) => r.text.startsWith(`box${i}:`)));
    await waitFor(
      async () => (await count(database, `SELECT COUNT(*) AS n FROM objects WHERE installation = '${id}'`)) === 1,
      5000,
    );
    const [object] = await query<{ account: string }>(
      database,
      `SELECT account FROM objects WHERE installation = '${id}'`,
    );
    assert.is(object?.account, `10${i}`);
    const [override] = await query<{ o: string }>(
      database,
      `SELECT override_oid AS o FROM oid_overrides WHERE installation = '${id}'`,
    );
    assert.is(override?.o, `B${i}`);
  }
  const installations = await query<{ name: string; lag_events: number }>(
    database,
    'SELECT name, lag_events FROM installations ORDER BY name',
  );
  assert.equal(
    installations.map((r) => r.name),
    ['east', 'north', 'south'],
  );
  // A box deleting its lost object deletes only its own row.
  const first = boxes[0]!;
  const id0 = first.f.store.meta.get(INSTANCE_ID_KEY)!;
  await first.f.store.write.objects.setConnectionState(1, 'lost');
  await first.f.store.write.objects.deleteLostOlderThan(Date.UTC(2030, 0, 1));
  await waitFor(
    async () => (await count(database, `SELECT COUNT(*) AS n FROM objects WHERE installation = '${id0}'`)) === 0,
    5000,
  );
  assert.is(await count(database, 'SELECT COUNT(*) AS n FROM objects'), 2);
});

test("each box's system update reaches installations, and again when it changes", async () => {
  const database = await freshDatabase();
  let report: FleetReport = {
    slot: 'A',
    update: { version: '0.2.0', slot: 'B', outcome: 'pending', reason: null, installedAt: '2026-11-28T02:10:00.000Z' },
    channel: 'version 0.2.0 is installed: rebooting into slot B',
  };
  const box = await gateway(database, 'fleet-1', target(database), () => report);
  await box.sync.start();
  const row = async () =>
    (
      await query<Record<string, unknown>>(
        database,
        'SELECT slot, update_version, update_slot, update_outcome, update_reason, update_installed_at, channel FROM installations',
      ).catch(() => [])
    )[0];
  await waitFor(async () => (await row())?.update_outcome === 'pending', 10_000);
  assert.equal(await row(), {
    slot: 'A',
    update_version: '0.2.0',
    update_slot: 'B',
    update_outcome: 'pending',
    update_reason: null,
    update_installed_at: '2026-11-28 02:10:00.000',
    channel: 'version 0.2.0 is installed: rebooting into slot B',
  });
  report = {
    ...report,
    update: { ...report.update!, outcome: 'rolled_back', reason: 'version 0.2.0 in slot B never started the gateway' },
    channel: 'version 0.2.0 rolled back on this box: waiting for a newer version on the channel',
  };
  await waitFor(async () => (await row())?.update_outcome === 'rolled_back', 10_000);
  assert.match(String((await row())?.update_reason), /never started the gateway/);
});

test('a version-1 mirror is upgraded in place: its rows are stamped, nothing is sent again, others join', async () => {
  const database = await freshDatabase();
  const owner = await gateway(database, 'old-box');
  await append(owner.f, 80, 'before');
  // The previous build made the instance id at its first sync.
  const ownerId = randomUUID();
  await owner.f.store.write.meta.set(INSTANCE_ID_KEY, ownerId);
  // Today's single-installation mirror, as the previous build leaves it: schema 1, claimed, 80 events, cursor 80.
  const db = await openRemoteDb(target(database), { connectTimeoutMs: 2000, queryTimeoutMs: 5000, onBroken: () => {} });
  try {
    await migrateRemote(db, REMOTE_MIGRATIONS.slice(0, 1));
    await db.query("INSERT INTO vigil_sync (name, value) VALUES ('instance_id', ?)", [ownerId]);
    await db.query(upsertSql('events', EVENT_COLUMNS, []), [owner.f.store.events.readAfter(0, 80).map(eventRow)]);
    await db.query("UPDATE events SET text = 'from-v1' WHERE id = 1");
  } finally {
    await db.close();
  }
  await owner.f.store.write.meta.set(EVENTS_CURSOR_KEY, '80');
  await append(owner.f, 20, 'after');
  const newcomer = await gateway(database, 'new-box');
  await append(newcomer.f, 30, 'new');
  await owner.sync.start();
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 100, 10_000);
  await waitFor(() => owner.f.health.get('mysql-sync')?.state === 'ok', 5000);
  assert.is(owner.sync.eventsSent, 20); // only what came after the cursor
  await newcomer.sync.start();
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 130, 10_000);
  assert.is(await count(database, `SELECT COUNT(*) AS n FROM events WHERE installation = '${ownerId}'`), 100);
  const [kept] = await query<{ text: string }>(
    database,
    `SELECT text FROM events WHERE installation = '${ownerId}' AND id = 1`,
  );
  assert.is(kept?.text, 'from-v1');
  const [version] = await query<{ value: string }>(
    database,
    "SELECT value FROM vigil_sync WHERE name = 'schema_version'",
  );
  assert.is(version?.value, String(REMOTE_MIGRATIONS.length));
  const key = await query<{ c: string }>(
    database,
    "SELECT COLUMN_NAME AS c FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'events' AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION",
  );
  assert.equal(
    key.map((r) => r.c),
    ['installation', 'id'],
  );
  const names = await query<{ name: string }>(database, 'SELECT name FROM installations ORDER BY name');
  assert.equal(
    names.map((r) => r.name),
    ['new-box', 'old-box'],
  );
});

test('a retired installation is refused (health says so) and its rows stay', async () => {
  const database = await freshDatabase();
  const box = await gateway(database, 'gone');
  await append(box.f, 5, 'a');
  await box.sync.start();
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 5, 10_000);
  await box.sync.stop();
  const id = box.f.store.meta.get(INSTANCE_ID_KEY);
  await server.exec(`UPDATE ${database}.installations SET retired_at = NOW(3) WHERE installation = '${id}'`);
  await append(box.f, 5, 'b');
  await box.sync.start();
  await waitFor(() => /was retired/.test(box.f.health.get('mysql-sync')?.detail ?? ''), 10_000);
  assert.is(box.f.health.get('mysql-sync')?.state, 'degraded');
  assert.is(await count(database, 'SELECT COUNT(*) AS n FROM events'), 5);
});

test('the first server down: the sync fails over to the next, records the failure, and shows the server in use', async () => {
  const database = await freshDatabase();
  const dead = await freePort(); // nothing listens there
  const box = await gateway(database, 'failover', target(database, [{ host: '127.0.0.1', port: server.port }], dead));
  await append(box.f, 10, 'x');
  await box.sync.start();
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 10, 10_000);
  await waitFor(() => box.f.health.get('mysql-sync')?.state === 'ok', 5000);
  assert.is(box.f.health.get('mysql-sync')?.metrics.server, `127.0.0.1:${server.port}`);
  const [row] = await query<{ server: string; last_error: string }>(
    database,
    'SELECT server, last_error FROM installations',
  );
  assert.is(row?.server, `127.0.0.1:${server.port}`);
  assert.match(row?.last_error ?? '', `127.0.0.1:${dead}: could not connect to a MySQL server`);
});

test('every server down: health names the server that failed and the one tried next, and SQLite keeps the events', async () => {
  const database = await freshDatabase();
  const [first, second] = [await freePort(), await freePort()];
  const box = await gateway(database, 'alone', target(database, [{ host: '127.0.0.1', port: second }], first));
  await append(box.f, 3, 'kept');
  await box.sync.start();
  const reason = (from: number, to: number): RegExp =>
    new RegExp(
      `^127\\.0\\.0\\.1:${from}: could not connect to a MySQL server at the configured address \\(the cause is in the gateway log\\); retrying on 127\\.0\\.0\\.1:${to} in \\d+ s$`,
    );
  await waitFor(() => reason(first, second).test(box.f.health.get('mysql-sync')?.detail ?? ''), 5000);
  await waitFor(() => reason(second, first).test(box.f.health.get('mysql-sync')?.detail ?? ''), 5000);
  assert.is(box.f.health.get('mysql-sync')?.state, 'degraded');
  assert.is(box.f.health.get('mysql-sync')?.metrics.lag, 3);
  assert.is(box.f.store.events.maxId(), 3);
});

test('a first server that accepts TCP and never answers: the connect times out and the next server takes the writes', async () => {
  const database = await freshDatabase();
  const sockets: Socket[] = [];
  const silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  try {
    const box = await gateway(database, 'timeout', target(database, [{ host: '127.0.0.1', port: server.port }], port));
    await append(box.f, 4, 't');
    const started = Date.now();
    await box.sync.start();
    await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 4, 10_000);
    assert.ok(Date.now() - started >= 1500, 'waited for the connect timeout first');
    const [row] = await query<{ last_error: string }>(database, 'SELECT last_error FROM installations');
    assert.match(row?.last_error ?? '', `127.0.0.1:${port}: could not connect to a MySQL server`);
  } finally {
    for (const s of sockets) s.destroy();
    silent.close();
  }
});

test('dual path: copies of one signal received by two boxes fold into one signal listing both', async () => {
  const database = await freshDatabase();
  const a = await gateway(database, 'path-a');
  const b = await gateway(database, 'path-b');
  const t = Date.UTC(2026, 0, 1, 12, 0, 0);
  const signal = (seq: string, deviceTime: number | null, zone: string): Partial<NewEvent> => ({
    sequence: seq,
    deviceTime,
    zoneNo: zone,
    text: `s${seq}`,
  });
  const frames = [signal('0001', t, '001'), signal('0002', t + 1000, '002'), signal('0003', null, '003')];
  await a.f.store.write.events.append(frames.map((s, i) => sampleEvent({ ...s, receivedAt: t + 5000 + i })));
  await b.f.store.write.events.append(frames.map((s, i) => sampleEvent({ ...s, receivedAt: t + 4000 + i })));
  // After a sequence wrap the number comes back with another device time: another signal.
  await a.f.store.write.events.append([
    sampleEvent({ ...signal('0001', t + 86_400_000, '001'), receivedAt: t + 90_000_000 }),
  ]);
  await a.sync.start();
  await b.sync.start();
  await waitFor(async () => (await count(database, 'SELECT COUNT(*) AS n FROM events')) === 7, 10_000);
  const signals = await query<{
    sequence: string;
    copies: number;
    box_count: number;
    first_installation: string;
    box_names: string;
    first: string;
  }>(
    database,
    'SELECT sequence, device_time, copies, box_count, box_names, first_received_at AS first, first_installation FROM signals ORDER BY sequence, device_time, first_received_at',
  );
  const idA = a.f.store.meta.get(INSTANCE_ID_KEY)!;
  const idB = b.f.store.meta.get(INSTANCE_ID_KEY)!;
  const both = [idA, idB].sort();
  const names = both.map((id) => (id === idA ? 'path-a' : 'path-b')).join(',');
  // b received the folded signals first.
  assert.equal(
    signals.map((s) => s.first_installation),
    [idB, idA, idB, idB, idA],
  );
  assert.equal(
    signals.map((s) => [s.sequence, Number(s.copies), Number(s.box_count), s.box_names, s.first]),
    [
      ['0001', 2, 2, names, '2026-01-01 12:00:04.000'],
      ['0001', 1, 1, 'path-a', '2026-01-02 13:00:00.000'],
      ['0002', 2, 2, names, '2026-01-01 12:00:04.001'],
      // Without a device time the copies cannot be matched safely: each stays its own signal.
      ['0003', 1, 1, 'path-b', '2026-01-01 12:00:04.002'],
      ['0003', 1, 1, 'path-a', '2026-01-01 12:00:05.002'],
    ],
  );
});

test.run();
