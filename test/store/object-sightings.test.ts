/**
 * object_sightings (migration 'object sightings table', docs/store.md §Sightings): a store with
 * data keeps every value through the migration, and a sighting from a known address writes pages
 * of object_sightings only (what the writer's sweep costs, docs/benchmarks.md §Sightings sweep model).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { MIGRATIONS, migrate } from '../../src/store/migrations.js';
import { toRecord, type ObjectRow } from '../../src/store/object-rows.js';
import { ObjectsRepo } from '../../src/store/objects-repo.js';
import { SCHEMA_V5 } from '../../src/store/schema-v5.js';
import { tempDir } from '../helpers/temp-dir.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const SIGHTINGS = MIGRATIONS.findIndex((m) => m.up === SCHEMA_V5);

function withDb(fn: (db: Database, path: string) => void): void {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'v.db');
    const db = openDatabase(path);
    try {
      fn(db, path);
    } finally {
      db.close();
    }
  } finally {
    dir.remove();
  }
}

const columns = (db: Database, table: string): string[] =>
  (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((r) => r.name);

test('the migration moves last_seen / last_ping of a store with data; every reader sees the same objects', () => {
  withDb((db) => {
    assert.ok(SIGHTINGS > 0);
    migrate(db, silentLogger, MIGRATIONS.slice(0, SIGHTINGS));
    const insert = db.prepare(
      `INSERT INTO objects (account, uid, main_object_id, receiver_id, receiver_kind, transport, remote_address, first_seen, last_seen,
         last_ping, connection_state, supervision_state, link_period_s, sms, restore_count)
       VALUES (?, ?, ?, 1, 'tcp', 'tcp', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run('0001', 'A1', null, '10.0.0.1:5000', T0, T0 + 60_000, T0 + 59_000, 'online', 'ok', 90, 1, 0);
    insert.run('0002', null, null, null, T0, T0 + 1, null, 'lost', null, null, 0, 3);
    insert.run('77', null, 1, '10.0.0.1:5000', T0 + 5, T0 + 70_000, null, 'offline', null, null, 0, 0);
    db.prepare('INSERT INTO object_sessions (object_id, connected_at) VALUES (1, ?)').run(T0);
    const before = (db.prepare('SELECT * FROM objects ORDER BY id').all() as ObjectRow[]).map(toRecord);
    assert.equal(
      before.map((o) => [o.lastSeen, o.lastPing]),
      [
        [T0 + 60_000, T0 + 59_000],
        [T0 + 1, null],
        [T0 + 70_000, null],
      ],
    );

    assert.equal(migrate(db, silentLogger), { from: SIGHTINGS, to: MIGRATIONS.length });
    const repo = new ObjectsRepo(db);
    assert.equal(repo.all(), before);
    assert.equal(repo.get(3), before[2]);
    assert.equal(repo.findByUid('a1'), before[0]);
    assert.equal(repo.relatedOf(1), [before[2]]);
    assert.equal(repo.list({ receiverIds: null, limit: 10, connectionState: 'lost' }).items, [before[1]]);
    assert.not.ok(columns(db, 'objects').includes('last_seen'));
    assert.not.ok(columns(db, 'objects').includes('last_ping'));
    assert.equal(db.prepare('SELECT * FROM object_sightings ORDER BY object_id').all(), [
      { object_id: 1, last_seen: T0 + 60_000, last_ping: T0 + 59_000 },
      { object_id: 2, last_seen: T0 + 1, last_ping: null },
      { object_id: 3, last_seen: T0 + 70_000, last_ping: null },
    ]);
    const lostIndex = db.prepare("SELECT sql FROM sqlite_schema WHERE name = 'objects_lost'").get() as { sql: string };
    assert.match(lostIndex.sql, "WHERE connection_state = 'lost'");
    assert.equal(db.pragma('foreign_key_check'), []);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');

    // After the migration the store works as before: retention by last_seen, cascades, new objects.
    assert.is(repo.deleteLostOlderThan(T0 + 2), 1);
    assert.equal(
      repo.all().map((o) => o.id),
      [1, 3],
    );
    repo.setConnectionState(1, 'lost');
    assert.is(repo.deleteLostOlderThan(T0 + 60_001), 1);
    assert.equal(repo.all(), []);
    assert.equal(db.prepare('SELECT count(*) AS n FROM object_sightings').get(), { n: 0 });
    assert.equal(db.prepare('SELECT count(*) AS n FROM object_sessions').get(), { n: 0 });
    const fresh = repo.upsertMain({ account: '0003', receiverId: 1, receiverKind: 'tcp', at: T0 + 9 });
    assert.equal([fresh.id, fresh.firstSeen, fresh.lastSeen, fresh.lastPing], [4, T0 + 9, T0 + 9, null]);
  });
});

/** Page numbers of the frames the WAL holds (1 KiB pages: 24-byte frame header + page). */
function walPages(path: string): number[] {
  const wal = readFileSync(`${path}-wal`);
  const pages: number[] = [];
  for (let off = 32; off + 24 + 1024 <= wal.length; off += 24 + 1024) pages.push(wal.readUInt32BE(off));
  return pages;
}

test('a sweep of sightings from known addresses writes object_sightings pages only; a new address writes the objects row too', () => {
  withDb((db, path) => {
    migrate(db, silentLogger);
    const repo = new ObjectsRepo(db);
    const ids: number[] = [];
    for (let i = 0; i < 300; i++) {
      ids.push(
        repo.upsertMain({
          uid: `A${i}`,
          account: String(300000 + i),
          receiverId: 1,
          receiverKind: 'tcp',
          transport: 'tcp',
          remoteAddress: `127.0.0.1:${40000 + i}`,
          hwId: 'SIM-1',
          firmware: '1.0.0',
          at: T0,
        }).id,
      );
    }
    const sweep = (at: number): void =>
      db
        .transaction(() => {
          for (const [i, id] of ids.entries()) repo.markSeen(id, at + i, `127.0.0.1:${40000 + i}`, { ping: true });
        })
        .immediate();
    // The first ping of each object grows its row (last_ping was NULL): pages split once. The steady state is measured.
    sweep(T0 + 50_000);
    db.pragma('wal_autocheckpoint = 0');
    db.pragma('wal_checkpoint(TRUNCATE)');
    assert.is(statSync(`${path}-wal`).size, 0);
    sweep(T0 + 60_000);
    const sightingPages = new Set(
      (db.prepare("SELECT pageno FROM dbstat WHERE name = 'object_sightings'").all() as { pageno: number }[]).map(
        (r) => r.pageno,
      ),
    );
    const written = walPages(path);
    assert.ok(written.length > 0);
    assert.ok(written.length <= sightingPages.size, `${written.length} frames for ${sightingPages.size} pages`);
    assert.equal(
      written.filter((p) => !sightingPages.has(p)),
      [],
    );
    assert.equal(
      [repo.get(ids[7]!)?.lastSeen, repo.get(ids[7]!)?.lastPing, repo.get(ids[7]!)?.remoteAddress],
      [T0 + 60_007, T0 + 60_007, '127.0.0.1:40007'],
    );

    db.pragma('wal_checkpoint(TRUNCATE)');
    repo.markSeen(ids[7]!, T0 + 70_000, '10.9.9.9:1');
    const objectPages = new Set(
      (db.prepare("SELECT pageno FROM dbstat WHERE name = 'objects'").all() as { pageno: number }[]).map(
        (r) => r.pageno,
      ),
    );
    assert.ok(walPages(path).some((p) => objectPages.has(p)));
    assert.equal(
      [repo.get(ids[7]!)?.lastSeen, repo.get(ids[7]!)?.lastPing, repo.get(ids[7]!)?.remoteAddress],
      [T0 + 70_000, T0 + 60_007, '10.9.9.9:1'],
    );
  });
});

test.run();
