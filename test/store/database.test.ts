import { existsSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger, createLogger } from '../../src/core/logger.js';
import { openDatabase, BUSY_TIMEOUT_MS } from '../../src/store/database.js';
import { MIGRATIONS, migrate, schemaVersion, type Migration } from '../../src/store/migrations.js';
import { VIGIL_APPLICATION_ID } from '../../src/store/schema-v1.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startStore } from './helpers/store-fixture.js';

function tables(db: BetterSqlite3.Database): string[] {
  return (
    db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as {
      name: string;
    }[]
  ).map((r) => r.name);
}

test('openDatabase creates the parent directory and sets WAL, synchronous FULL, foreign keys and busy timeout', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'a', 'b', 'vigil.db');
    const db = openDatabase(path);
    assert.ok(existsSync(path));
    assert.is(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.is(db.pragma('synchronous', { simple: true }), 2); // 2 = FULL
    assert.is(db.pragma('foreign_keys', { simple: true }), 1);
    assert.is(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS);
    assert.is(BUSY_TIMEOUT_MS, 5000);
    db.close();
  } finally {
    dir.remove();
  }
});

test('the migrations create the whole schema, stamp user_version and the Vigil application_id', () => {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, 'v.db'));
    assert.equal(migrate(db, silentLogger), { from: 0, to: MIGRATIONS.length });
    assert.is(schemaVersion(db), MIGRATIONS.length);
    assert.is(db.pragma('application_id', { simple: true }), VIGIL_APPLICATION_ID);
    assert.equal(tables(db), [
      'device_keys',
      'events',
      'events_high_water',
      'meta',
      'object_sessions',
      'object_sightings',
      'objects',
      'oid_overrides',
      'output_cursors',
      'revoked_tokens',
      'settings',
      'user_grants',
      'user_token_epochs',
      'users',
    ]);
    db.close();
  } finally {
    dir.remove();
  }
});

test('migration 2 drops every secondary journal index of a version-1 file and keeps its rows', () => {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, 'v.db'));
    assert.equal(migrate(db, silentLogger, MIGRATIONS.slice(0, 1)), { from: 0, to: 1 });
    db.prepare(
      "INSERT INTO events (received_at, account, protocol, event_class, raw) VALUES (1, 'A1', 'SIA-DCS', 'alarm', x'0A')",
    ).run();
    const indexes = () =>
      (
        db
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'events' ORDER BY name")
          .all() as { name: string }[]
      ).map((r) => r.name);
    assert.equal(indexes(), [
      'events_by_account',
      'events_by_code',
      'events_by_object',
      'events_by_received_at',
      'events_by_receiver',
    ]);
    assert.equal(migrate(db, silentLogger), { from: 1, to: MIGRATIONS.length });
    assert.equal(indexes(), []);
    assert.equal(db.prepare('SELECT id, account FROM events').all(), [{ id: 1, account: 'A1' }]);
    db.close();
  } finally {
    dir.remove();
  }
});

test('migrations are idempotent across reopen: the second start applies nothing and keeps the data', async () => {
  const fx = await startStore();
  try {
    await fx.store.write.meta.set('instance_id', 'abc');
    assert.is(fx.logs.filter((l) => l.includes('migration applied')).length, MIGRATIONS.length);
    await fx.store.stop();
    const again = await fx.reopen();
    assert.is(fx.logs.filter((l) => l.includes('migration applied')).length, MIGRATIONS.length);
    assert.is(again.meta.get('instance_id'), 'abc');
  } finally {
    await fx.cleanup();
  }
});

test('a database newer than the code knows, whose floor is newer too, is refused with STORE_FAILURE', async () => {
  const fx = await startStore();
  try {
    await fx.store.stop();
    const raw = new BetterSqlite3(fx.path);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_readable_from'").run(String(MIGRATIONS.length + 1));
    raw.close();
    try {
      await fx.reopen();
      assert.unreachable('start should have failed');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match(
        (err as Error).message,
        `database schema version ${MIGRATIONS.length + 1} is newer than this Vigil build supports (${MIGRATIONS.length})`,
      );
    }
    assert.is(fx.health.get('store')?.state, 'failed');
    assert.match(fx.health.get('store')?.detail ?? '', 'is newer than this Vigil build supports');
    // The refused file was not touched.
    const check = new BetterSqlite3(fx.path, { readonly: true });
    assert.is(check.pragma('user_version', { simple: true }), MIGRATIONS.length + 1);
    check.close();
  } finally {
    await fx.cleanup();
  }
});

test('a foreign SQLite file (tables but no Vigil version) is refused, not migrated', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'other.db');
    const raw = new BetterSqlite3(path);
    raw.exec('CREATE TABLE settings (x)');
    raw.close();
    const db = openDatabase(path);
    try {
      migrate(db, silentLogger);
      assert.unreachable('should refuse');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match((err as Error).message, 'has tables but no Vigil schema version');
    }
    assert.is(schemaVersion(db), 0);
    db.close();
  } finally {
    dir.remove();
  }
});

test('a failing migration rolls back entirely: version and tables stay as they were', () => {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, 'v.db'));
    migrate(db, silentLogger);
    const broken: Migration[] = [
      ...MIGRATIONS,
      {
        version: MIGRATIONS.length + 1,
        name: 'broken',
        up: 'CREATE TABLE extra (x); INSERT INTO no_such_table VALUES (1);',
        readableFrom: 6,
      },
    ];
    try {
      migrate(db, silentLogger, broken);
      assert.unreachable('should fail');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match(
        (err as Error).message,
        `migration ${MIGRATIONS.length + 1} (broken) failed: no such table: no_such_table`,
      );
    }
    assert.is(schemaVersion(db), MIGRATIONS.length);
    assert.not.ok(tables(db).includes('extra'));
    db.close();
  } finally {
    dir.remove();
  }
});

test('a later migration is applied once, on top of the earlier ones, and logged', () => {
  const dir = tempDir();
  try {
    const lines: string[] = [];
    const logger = createLogger('t', (l) => lines.push(l));
    const db = openDatabase(join(dir.path, 'v.db'));
    const n = MIGRATIONS.length + 1;
    const more: Migration[] = [
      ...MIGRATIONS,
      { version: n, name: 'add extra', up: (d) => d.exec('CREATE TABLE extra (x)'), readableFrom: 6 },
    ];
    assert.equal(migrate(db, logger, more), { from: 0, to: n });
    assert.equal(migrate(db, logger, more), { from: n, to: n });
    assert.is(lines.filter((l) => l.includes('migration applied')).length, n);
    assert.match(lines[n - 1] ?? '', `version=${n} name="add extra"`);
    db.close();
  } finally {
    dir.remove();
  }
});

test('a migration list with a gap in its versions is a programming error', () => {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, 'v.db'));
    const gap: Migration[] = [MIGRATIONS[0]!, { version: 3, name: 'gap', up: '', readableFrom: 3 }];
    assert.throws(() => migrate(db, silentLogger, gap), /migration #1 has version 3, expected 2/);
    db.close();
  } finally {
    dir.remove();
  }
});

test.run();
