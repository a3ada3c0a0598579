/**
 * Migration 4 (src/store/schema-v4.ts): the journal's IN-list CHECKs become OR chains in place.
 * The new constraints must accept exactly what the old ones accepted, on a migrated file and on a
 * fresh one; the table is not copied; a failure leaves version 3 untouched.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.js';
import { EVENTS_TABLE_SQL } from '../../src/store/schema-v4.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventsSql, schema, withFiles } from './helpers/migration-files.js';

const V3 = MIGRATIONS.slice(0, 3);
/** Up to this migration: later ones (5: object_sightings) change other tables. */
const V4 = MIGRATIONS.slice(0, 4);
const ROW = {
  received_at: 1,
  receiver_kind: 'tcp',
  account: '1234',
  protocol: 'SIA-DCS',
  encrypted: 0,
  event_class: 'alarm',
  qualifier: 'E',
};
type Column = 'receiver_kind' | 'encrypted' | 'event_class' | 'qualifier';

/** The values each CHECK allows; then values it must refuse, near misses included. */
const ALLOWED: Record<Column, unknown[]> = {
  receiver_kind: [null, 'tcp', 'udp', 'com', 'modem'],
  encrypted: [0, 1, '0', '1', '1.0', 1n],
  event_class: ['alarm', 'restore', 'link_test', 'internal', 'other'],
  qualifier: [null, 'E', 'R', 'P'],
};
const REFUSED: Record<Column, unknown[]> = {
  receiver_kind: ['TCP', 'tcp ', '', 'serial', 0, Buffer.from('tcp')],
  encrypted: [2, -1, 0.5, 'yes', '', Buffer.from([0]), null],
  event_class: ['ALARM', 'alarm ', 'link-test', '', 5, Buffer.from('alarm'), null],
  qualifier: ['e', 'EE', '', 'X', 1, Buffer.from('E')],
};

/** 'ok' or the SQLite error code of one INSERT with `column` set to `value`, everything else valid. */
function insertOutcome(db: Database, column: Column, value: unknown): string {
  const row = { ...ROW, [column]: value };
  try {
    db.prepare(
      `INSERT INTO events (received_at, receiver_kind, account, protocol, encrypted, event_class, qualifier, raw)
       VALUES (@received_at, @receiver_kind, @account, @protocol, @encrypted, @event_class, @qualifier, x'0A')`,
    ).run(row);
    return 'ok';
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

function outcomes(db: Database): Record<string, string> {
  const out: Record<string, string> = {};
  for (const column of Object.keys(ALLOWED) as Column[]) {
    for (const value of [...ALLOWED[column], ...REFUSED[column]])
      out[`${column}=${describe(value)}`] = insertOutcome(db, column, value);
  }
  return out;
}

function describe(value: unknown): string {
  if (Buffer.isBuffer(value)) return `x'${value.toString('hex')}'`;
  return typeof value === 'string' ? `'${value}'` : `${String(value)}:${typeof value}`;
}

function expectedOutcomes(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const column of Object.keys(ALLOWED) as Column[]) {
    for (const value of ALLOWED[column]) out[`${column}=${describe(value)}`] = 'ok';
    for (const value of REFUSED[column]) {
      out[`${column}=${describe(value)}`] = value === null ? 'SQLITE_CONSTRAINT_NOTNULL' : 'SQLITE_CONSTRAINT_CHECK';
    }
  }
  return out;
}

/** A version-3 journal with `count` rows of every class, as a running gateway leaves it. */
function seedV3(db: Database, count: number): void {
  migrate(db, silentLogger, V3);
  const insert = db.prepare(
    `INSERT INTO events (received_at, receiver_id, receiver_kind, account, protocol, encrypted, event_class, qualifier, code, raw)
     VALUES (?, 1, ?, ?, 'SIA-DCS', ?, ?, ?, 'BA', ?)`,
  );
  const kinds = ['tcp', 'udp', 'com', 'modem', null];
  const classes = ['alarm', 'restore', 'link_test', 'internal', 'other'];
  const qualifiers = ['E', 'R', 'P', null];
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      insert.run(i, kinds[i % 5], `A${i % 97}`, i % 2, classes[i % 5], qualifiers[i % 4], Buffer.from(`frame ${i}`));
    }
  })();
}

test('every value the version-3 CHECKs accept is accepted after migration 4 and on a fresh file, and no other', () => {
  withFiles((open) => {
    const v3 = open('v3.db');
    migrate(v3, silentLogger, V3);
    const before = outcomes(v3);
    assert.equal(before, expectedOutcomes());

    const migrated = open('migrated.db');
    seedV3(migrated, 50);
    assert.equal(migrate(migrated, silentLogger, V4), { from: 3, to: 4 });
    assert.equal(outcomes(migrated), before);

    const fresh = open('fresh.db');
    assert.equal(migrate(fresh, silentLogger, V4), { from: 0, to: 4 });
    assert.equal(outcomes(fresh), before);
  });
});

test('a refused value fails with the new constraint named, and the OR chains are what the table holds', () => {
  withFiles((open) => {
    const db = open('v.db');
    migrate(db, silentLogger, V4);
    assert.is(eventsSql(db), EVENTS_TABLE_SQL);
    assert.not.match(eventsSql(db), / IN \(/);
    assert.throws(
      () =>
        db
          .prepare(
            "INSERT INTO events (received_at, account, protocol, event_class, raw) VALUES (1, 'A', 'P', 'panic', x'00')",
          )
          .run(),
      (err: Error) =>
        err.message ===
        "CHECK constraint failed: event_class = 'alarm' OR event_class = 'restore' OR event_class = 'link_test' OR event_class = 'internal' OR event_class = 'other'",
    );
  });
});

test('a file migrated from version 3 with rows in it ends with the same schema as a fresh one, rows untouched', () => {
  withFiles((open) => {
    const migrated = open('migrated.db');
    seedV3(migrated, 2000);
    const rowsBefore = migrated.prepare('SELECT * FROM events ORDER BY id').all();
    const rootBefore = migrated.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").get();
    const pagesBefore = migrated.pragma('page_count', { simple: true }) as number;
    assert.ok(pagesBefore > 100);
    assert.not.equal(eventsSql(migrated), EVENTS_TABLE_SQL);

    assert.equal(migrate(migrated, silentLogger, V4), { from: 3, to: 4 });
    const fresh = open('fresh.db');
    migrate(fresh, silentLogger, V4);
    assert.is(eventsSql(migrated), eventsSql(fresh));
    assert.equal(schema(migrated), schema(fresh));
    // In place: same b-tree, same rows; the file grows by at most the page the longer schema text
    // needs (1 KiB pages), where a copy would have added the whole table again.
    assert.equal(migrated.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").get(), rootBefore);
    assert.ok((migrated.pragma('page_count', { simple: true }) as number) - pagesBefore <= 1);
    assert.equal(migrated.prepare('SELECT * FROM events ORDER BY id').all(), rowsBefore);
    assert.equal(migrated.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    // AUTOINCREMENT goes on from where it was.
    migrated
      .prepare(
        "INSERT INTO events (received_at, account, protocol, event_class, raw) VALUES (1, 'A', 'P', 'alarm', x'00')",
      )
      .run();
    assert.is((migrated.prepare('SELECT max(id) AS id FROM events').get() as { id: number }).id, 2001);
  });
});

test('a file the migration reopens from disk keeps the new schema (the change is committed, not cached)', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'v.db');
    const first = openDatabase(path);
    seedV3(first, 10);
    migrate(first, silentLogger, V4);
    first.close();
    const again = openDatabase(path);
    assert.is(schemaVersion(again), 4);
    assert.is(eventsSql(again), EVENTS_TABLE_SQL);
    assert.is(insertOutcome(again, 'event_class', 'panic'), 'SQLITE_CONSTRAINT_CHECK');
    assert.is(insertOutcome(again, 'event_class', 'restore'), 'ok');
    again.close();
  } finally {
    dir.remove();
  }
});

test('a failure after the schema row was rewritten rolls all of migration 4 back and leaves version 3 usable', () => {
  withFiles((open) => {
    const db = open('v.db');
    seedV3(db, 10);
    const oldSql = eventsSql(db);
    // A row no CHECK would let in (only ignore_check_constraints can): the integrity_check that
    // ends the procedure finds it after sqlite_schema was already updated.
    db.pragma('ignore_check_constraints = ON');
    db.prepare(
      "INSERT INTO events (received_at, account, protocol, encrypted, event_class, raw) VALUES (1, 'A', 'P', 2, 'alarm', x'00')",
    ).run();
    db.pragma('ignore_check_constraints = OFF');
    try {
      migrate(db, silentLogger);
      assert.unreachable('migration 4 must fail');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match(
        (err as Error).message,
        'migration 4 (journal CHECKs as OR chains) failed: integrity_check after rewriting events: CHECK constraint failed in events',
      );
    }
    assert.is(schemaVersion(db), 3);
    assert.is(eventsSql(db), oldSql);
    assert.is(db.pragma('writable_schema', { simple: true }), 0);
    // The defensive guard is back: sqlite_schema cannot be written even with writable_schema.
    db.pragma('writable_schema = ON');
    assert.throws(
      () => db.prepare("UPDATE sqlite_schema SET sql = sql WHERE name = 'events'").run(),
      /may not be modified/,
    );
    db.pragma('writable_schema = OFF');
    assert.is(insertOutcome(db, 'event_class', 'restore'), 'ok');
    assert.is(insertOutcome(db, 'event_class', 'panic'), 'SQLITE_CONSTRAINT_CHECK');
  });
});

test('an events table that is not the one migration 1 created is refused, not rewritten', () => {
  withFiles((open) => {
    const db = open('v.db');
    seedV3(db, 3);
    db.exec('DROP TABLE events');
    db.exec(
      'CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, encrypted INTEGER CHECK (encrypted IN (0, 1, 2)), raw BLOB)',
    );
    const oldSql = eventsSql(db);
    try {
      migrate(db, silentLogger);
      assert.unreachable('migration 4 must refuse');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match((err as Error).message, 'does not hold the CHECK');
    }
    assert.is(schemaVersion(db), 3);
    assert.is(eventsSql(db), oldSql);
  });
});

test.run();
