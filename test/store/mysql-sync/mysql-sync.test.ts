/**
 * The MySQL sync against a REAL MariaDB (test/helpers/mariadb.ts, killed and restarted for the outage tests): schema, replication of objects,
 * events and overrides, outages (server killed, connections killed) with catch-up exactly once,
 * and resuming after a gateway restart. Each test uses its own database on the one server.
 */
import { createConnection, type Connection } from 'mysql2/promise';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../../src/core/logger.js';
import { EVENTS_CURSOR_KEY, INSTANCE_ID_KEY } from '../../../src/store/mysql-sync/replicate.js';
import { MysqlSync, type MysqlSyncOptions } from '../../../src/store/mysql-sync/mysql-sync.js';
import { EVENT_COLUMNS } from '../../../src/store/mysql-sync/remote-rows.js';
import type { Store } from '../../../src/store/store.js';
import { sleep, waitFor } from '../../helpers/net.js';
import { sampleEvent, startStore, type StoreFixture } from '../helpers/store-fixture.js';
import { startMariaDb, type MariaDb } from '../../helpers/mariadb.js';

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

test.before(async () => {
  server = await startMariaDb();
});

test.after(async () => {
  await server?.stop();
});

/** Every sync a test made is stopped after it, also when the test failed half-way. */
const live: MysqlSync[] = [];
test.after.each(async () => {
  for (const sync of live.splice(0)) await sync.stop();
});

/** A fresh database for one test. */
async function freshDatabase(): Promise<string> {
  const name = `sync${++databases}`;
  await server.exec(`CREATE DATABASE ${name}; GRANT ALL ON ${name}.* TO 'vigil'@'127.0.0.1';`);
  return name;
}

function target(database: string, password = 'vigilpass') {
  return {
    sqlhost: '127.0.0.1',
    sqlport: server.port,
    sqluser: 'vigil',
    sqlpass: password,
    sqldatabase: database,
    sql_tls_mode: 'disabled' as const,
    sql_tls_ca_file: '',
  };
}

function newSync(
  f: StoreFixture,
  store: Store,
  database: string,
  options: MysqlSyncOptions = FAST,
  password = 'vigilpass',
): MysqlSync {
  const sync = new MysqlSync({
    store,
    target: target(database, password),
    installationName: 'box-a',
    version: '9.9.9',
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    options,
  });
  live.push(sync);
  return sync;
}

/** A reading connection of the test itself; dates as the stored strings. */
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

async function rows<T>(conn: Connection, sql: string): Promise<T[]> {
  const [result] = await conn.query(sql);
  return result as T[];
}

async function remoteEventIds(database: string): Promise<number[]> {
  const conn = await reader(database);
  try {
    return (await rows<{ id: number }>(conn, 'SELECT id FROM events ORDER BY id')).map((r) => Number(r.id));
  } catch (err) {
    if ((err as { code?: string }).code === 'ER_NO_SUCH_TABLE') return []; // the sync has not created it yet
    throw err;
  } finally {
    await conn.end();
  }
}

async function appendEvents(store: Store, count: number, tag: string): Promise<number[]> {
  return (
    await store.write.events.append(
      Array.from({ length: count }, (_, i) =>
        sampleEvent({ text: `${tag}:${i}`, sequence: String(i % 10000).padStart(4, '0') }),
      ),
    )
  ).map((r) => r.id);
}

test('first connect creates the schema, stamps version and owner, and reports ok with metrics', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database);
  try {
    await sync.start();
    assert.is(f.health.get('mysql-sync')?.state, 'degraded'); // until the first cycle succeeded
    await waitFor(() => f.health.get('mysql-sync')?.state === 'ok', 10_000);
    const conn = await reader(database);
    try {
      const tables = (
        await rows<{ t: string }>(
          conn,
          'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1',
        )
      ).map((r) => r.t);
      assert.equal(tables, ['events', 'installations', 'objects', 'oid_overrides', 'signals', 'vigil_sync']);
      const syncRows = await rows<{ name: string; value: string }>(
        conn,
        'SELECT name, value FROM vigil_sync ORDER BY name',
      );
      assert.equal(syncRows, [{ name: 'schema_version', value: '3' }]);
      const installations = await rows<Record<string, unknown>>(
        conn,
        'SELECT installation, name, version, server, last_sync_at IS NOT NULL AS synced, retired_at FROM installations',
      );
      assert.equal(installations, [
        {
          installation: f.store.meta.get(INSTANCE_ID_KEY),
          name: 'box-a',
          version: '9.9.9',
          server: `127.0.0.1:${server.port}`,
          synced: 1,
          retired_at: null,
        },
      ]);
      const columns = (
        await rows<{ c: string }>(
          conn,
          "SELECT column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'events' ORDER BY ordinal_position",
        )
      ).map((r) => r.c);
      assert.equal(columns, ['installation', ...EVENT_COLUMNS]);
    } finally {
      await conn.end();
    }
    const component = f.health.get('mysql-sync');
    assert.is(component?.kind, 'sync');
    assert.equal(component?.metrics, {
      connected: true,
      lag: 0,
      last_sync_at: f.clock.now(),
      server: `127.0.0.1:${server.port}`,
      installation: f.store.meta.get(INSTANCE_ID_KEY),
    });
  } finally {
    await sync.stop();
    await f.cleanup();
  }
  assert.is(f.health.get('mysql-sync'), undefined);
});

test('objects, events and OID overrides replicate with their values; changes and deletions follow', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database);
  const t0 = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
  try {
    const main = await f.store.write.objects.upsertMain({
      uid: 'a1b2c3',
      account: '001234',
      receiverId: 2,
      receiverKind: 'tcp',
      transport: 'tcp',
      remoteAddress: '10.1.2.3:5000',
      hwId: 'HW1',
      firmware: '1.2.3',
      at: t0,
    });
    const related = await f.store.write.objects.upsertRelated(main.id, '0099', { at: t0 + 1000 });
    const doomed = await f.store.write.objects.upsertMain({
      account: '5555',
      receiverId: 1,
      receiverKind: 'udp',
      at: t0 - 90 * 86_400_000,
    });
    await f.store.write.objects.setConnectionState(doomed.id, 'lost');
    const [eventId] = (
      await f.store.write.events.append([
        sampleEvent({
          receivedAt: t0,
          objectId: main.id,
          account: '001234',
          deviceTime: t0 - 500,
          deviceTimeText: '12:00:00,01-01-2026',
          text: 'Zürich',
        }),
      ])
    ).map((r) => r.id);
    await f.store.write.overrides.set({
      matchKind: 'uid',
      matchValue: 'A1B2C3',
      relatedOid: null,
      overrideOid: 'BEEF',
    });
    await f.store.write.overrides.set({
      matchKind: 'oid',
      matchValue: '001234',
      relatedOid: '0099',
      overrideOid: 'CAFE',
    });
    await sync.start();
    await waitFor(async () => (await remoteEventIds(database)).length === 1, 10_000);
    await waitFor(() => f.health.get('mysql-sync')?.state === 'ok', 5000);

    const conn = await reader(database);
    try {
      const objects = await rows<Record<string, unknown>>(conn, 'SELECT * FROM objects ORDER BY id');
      assert.equal(
        objects.map((o) => Number(o.id)),
        [main.id, related.id, doomed.id],
      );
      assert.equal(objects[0], {
        installation: f.store.meta.get(INSTANCE_ID_KEY),
        id: main.id,
        account: '001234',
        uid: 'A1B2C3',
        hw_id: 'HW1',
        firmware: '1.2.3',
        main_object_id: null,
        receiver_id: 2,
        receiver_kind: 'tcp',
        transport: 'tcp',
        remote_address: '10.1.2.3:5000',
        first_seen: '2026-01-01 12:00:00.250',
        last_seen: '2026-01-01 12:00:00.250',
        last_ping: null,
        connection_state: 'online',
        supervision_state: null,
        link_period_s: null,
        sms: 0,
        restore_count: 0,
      });
      assert.is(Number(objects[1]?.main_object_id), main.id);
      const [event] = await rows<Record<string, unknown>>(conn, 'SELECT * FROM events');
      assert.equal(event, {
        installation: f.store.meta.get(INSTANCE_ID_KEY),
        id: eventId,
        received_at: '2026-01-01 12:00:00.250',
        device_time: '2026-01-01 11:59:59.750',
        device_time_text: '12:00:00,01-01-2026',
        receiver_id: 1,
        receiver_kind: 'tcp',
        transport: 'tcp',
        remote_address: '127.0.0.1:40000',
        object_id: main.id,
        account: '001234',
        dc09_receiver: 'R1',
        dc09_line: 'L1',
        sequence: '0001',
        protocol: 'SIA-DCS',
        encrypted: 0,
        event_class: 'alarm',
        qualifier: 'E',
        code: 'BA',
        group_no: '01',
        zone_no: '003',
        text: 'Zürich',
        flags: 0,
        raw: Buffer.from('"SIA-DCS"0001R1L1#001234[#001234|Nri01/BA003]'),
      });
      const overrides = await rows<Record<string, unknown>>(
        conn,
        'SELECT match_kind, match_value, related_oid, override_oid FROM oid_overrides ORDER BY match_kind',
      );
      assert.equal(overrides, [
        { match_kind: 'oid', match_value: '001234', related_oid: '0099', override_oid: 'CAFE' },
        { match_kind: 'uid', match_value: 'A1B2C3', related_oid: '', override_oid: 'BEEF' },
      ]);
    } finally {
      await conn.end();
    }

    // Changes: a state change, an override changed, a lost object removed by retention.
    await f.store.write.objects.setConnectionState(main.id, 'lost');
    await f.store.write.overrides.set({
      matchKind: 'uid',
      matchValue: 'A1B2C3',
      relatedOid: null,
      overrideOid: 'F00D',
    });
    assert.is(await f.store.write.objects.deleteLostOlderThan(t0 - 30 * 86_400_000), 1);
    const check = await reader(database);
    try {
      await waitFor(async () => {
        const ids = (await rows<{ id: number }>(check, 'SELECT id FROM objects ORDER BY id')).map((r) => Number(r.id));
        const [state] = await rows<{ s: string }>(
          check,
          `SELECT connection_state AS s FROM objects WHERE id = ${main.id}`,
        );
        const [override] = await rows<{ o: string }>(
          check,
          "SELECT override_oid AS o FROM oid_overrides WHERE match_kind = 'uid'",
        );
        return ids.join() === `${main.id},${related.id}` && state?.s === 'lost' && override?.o === 'F00D';
      }, 5000);
    } finally {
      await check.end();
    }
  } finally {
    await sync.stop();
    await f.cleanup();
  }
});

test('MariaDB killed mid-run: SQLite keeps taking events, health says so, and after restart every event arrives exactly once', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database);
  try {
    const before = await appendEvents(f.store, 120, 'before');
    await sync.start();
    await waitFor(async () => (await remoteEventIds(database)).length === 120, 10_000);

    await server.kill();
    const during: number[] = [];
    let slowestAppendMs = 0;
    for (let round = 0; round < 20; round++) {
      const started = performance.now();
      during.push(...(await appendEvents(f.store, 15, `during:${round}`)));
      slowestAppendMs = Math.max(slowestAppendMs, performance.now() - started);
      await sleep(15); // the sync keeps retrying meanwhile
    }
    await waitFor(() => f.health.get('mysql-sync')?.metrics.connected === false, 5000);
    const down = f.health.get('mysql-sync');
    assert.is(down?.state, 'degraded');
    assert.match(down?.detail ?? '', /retrying in \d+ s/);
    assert.ok(Number(down?.metrics.lag) > 0, 'lag shows the backlog');
    assert.ok(slowestAppendMs < 500, `an append took ${slowestAppendMs} ms while MySQL was down`);
    assert.is(f.store.events.countAfter(0), 420);

    await server.start();
    const after = await appendEvents(f.store, 30, 'after');
    const expected = [...before, ...during, ...after];
    await waitFor(async () => (await remoteEventIds(database)).length >= expected.length, 20_000);
    await sleep(100); // a duplicate, if any, would show up now
    assert.equal(await remoteEventIds(database), expected);
    await waitFor(
      () => f.health.get('mysql-sync')?.state === 'ok' && f.health.get('mysql-sync')?.metrics.lag === 0,
      5000,
    );
    assert.is(f.store.meta.get(EVENTS_CURSOR_KEY), String(expected[expected.length - 1]));
  } finally {
    await sync.stop();
    await f.cleanup();
  }
});

test('connections killed again and again while events keep coming: each event exactly once', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database, { ...FAST, batchSize: 7 });
  const killConnections = async (): Promise<void> => {
    const ids = (await server.exec("SELECT id FROM information_schema.processlist WHERE user = 'vigil'"))
      .split('\n')
      .filter(Boolean);
    for (const id of ids) await server.exec(`KILL CONNECTION ${id}`).catch(() => undefined);
  };
  try {
    await sync.start();
    const expected: number[] = [];
    for (let round = 0; round < 12; round++) {
      expected.push(...(await appendEvents(f.store, 25, `r${round}`)));
      await sleep(20);
      if (round % 3 === 1) await killConnections();
    }
    await waitFor(async () => (await remoteEventIds(database)).length >= expected.length, 20_000);
    await sleep(100);
    assert.equal(await remoteEventIds(database), expected);
  } finally {
    await sync.stop();
    await f.cleanup();
  }
});

test('a batch the mirror already has, sent again (cursor behind), leaves every event once', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database);
  try {
    const ids = await appendEvents(f.store, 60, 'x');
    await sync.start();
    await waitFor(async () => (await remoteEventIds(database)).length === 60, 10_000);
    await sync.stop();
    // As if the process died after MySQL committed but before the cursor was saved.
    await f.store.write.meta.set(EVENTS_CURSOR_KEY, '0');
    const again = newSync(f, f.store, database);
    await again.start();
    await waitFor(() => again.eventsSent === 60, 10_000);
    await again.stop();
    assert.equal(await remoteEventIds(database), ids);
  } finally {
    await f.cleanup();
  }
});

test('after a gateway restart the sync resumes from its persisted cursor instead of starting over', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  try {
    const first = await appendEvents(f.store, 50, 'first');
    const sync = newSync(f, f.store, database);
    await sync.start();
    await waitFor(async () => (await remoteEventIds(database)).length === 50, 10_000);
    await sync.stop();
    await f.store.stop();

    // Gone from the mirror: a sync that started over would bring it back.
    const conn = await reader(database);
    await conn.query(`DELETE FROM events WHERE id = ${first[9]}`);
    await conn.end();

    const store = await f.reopen();
    const second = await appendEvents(store, 20, 'second');
    const resumed = newSync(f, store, database);
    await resumed.start();
    await waitFor(async () => (await remoteEventIds(database)).length === 69, 10_000);
    await sleep(100);
    await resumed.stop();
    assert.is(resumed.eventsSent, 20);
    assert.equal(await remoteEventIds(database), [...first.filter((id) => id !== first[9]), ...second]);
  } finally {
    await f.cleanup();
  }
});

test('a remote schema newer than this build is refused', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  await server.exec(
    `USE ${database}; CREATE TABLE vigil_sync (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL); ` +
      "INSERT INTO vigil_sync VALUES ('schema_version', '99');",
  );
  const sync = newSync(f, f.store, database);
  try {
    await sync.start();
    await waitFor(() => /schema version 99/.test(f.health.get('mysql-sync')?.detail ?? ''), 10_000);
  } finally {
    await sync.stop();
    await f.cleanup();
  }
});

test('wrong credentials: degraded with the server reason, never the password', async () => {
  const f = await startStore();
  const database = await freshDatabase();
  const sync = newSync(f, f.store, database, FAST, 'wrong-secret-pw');
  try {
    await sync.start();
    await waitFor(() => /Access denied/.test(f.health.get('mysql-sync')?.detail ?? ''), 10_000);
    const detail = f.health.get('mysql-sync')?.detail ?? '';
    assert.not.match(detail, /wrong-secret-pw/);
    assert.match(detail, /^ER_ACCESS_DENIED_ERROR: Access denied for user 'vigil'@'127.0.0.1'/);
  } finally {
    await sync.stop();
    await f.cleanup();
  }
});

test.run();
