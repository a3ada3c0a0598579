/**
 * Migration 6 (src/store/schema-v6.ts): the journal's AUTOINCREMENT dropped in place, the
 * sqlite_sequence value carried into events_high_water. A version-5 file keeps its rows and
 * passes integrity_check, ends with a fresh file's schema, and never reuses an id AUTOINCREMENT
 * handed out, also when retention had already deleted the newest rows (sequence above max(id)).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { EventJournal } from '../../src/store/event-journal.js';
import { toInsertParams } from '../../src/store/journal-columns.js';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.js';
import { EVENTS_TABLE_SQL } from '../../src/store/schema-v6.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventsSql, schema, withFiles } from './helpers/migration-files.js';
import { sampleEvent } from './helpers/store-fixture.js';

const V5 = MIGRATIONS.slice(0, 5);

/** A version-5 file with `count` journal rows inserted the way version 5 did (AUTOINCREMENT). */
function seedV5(db: Database, count: number): void {
  migrate(db, silentLogger, V5);
  const insert = db.prepare(
    `INSERT INTO events (received_at, receiver_id, receiver_kind, account, protocol, event_class, code, raw)
     VALUES (?, 1, 'tcp', ?, 'SIA-DCS', 'alarm', 'BA', ?)`,
  );
  db.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(1000 + i, `A${i % 97}`, Buffer.from(`frame ${i}`));
  })();
}

function sequenceOf(db: Database, table: string): number | undefined {
  return (db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').get(table) as { seq: number } | undefined)?.seq;
}

function highWater(db: Database): number {
  return (db.prepare('SELECT last_id FROM events_high_water').get() as { last_id: number }).last_id;
}

function append(db: Database, count: number): number[] {
  return new EventJournal(db).appendRows(
    Array.from({ length: count }, (_, i) => toInsertParams(sampleEvent({ account: `N${i}` }))),
  );
}

test('a populated version-5 file keeps its rows and b-tree, passes integrity_check and ends with a fresh file schema', () => {
  withFiles((open) => {
    const migrated = open('migrated.db');
    seedV5(migrated, 2000);
    const rowsBefore = migrated.prepare('SELECT * FROM events ORDER BY id').all();
    const rootBefore = migrated.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").get();
    assert.match(eventsSql(migrated), /PRIMARY KEY AUTOINCREMENT/);
    assert.is(sequenceOf(migrated, 'events'), 2000);

    assert.equal(migrate(migrated, silentLogger), { from: 5, to: MIGRATIONS.length });
    const fresh = open('fresh.db');
    migrate(fresh, silentLogger);
    assert.is(eventsSql(migrated), EVENTS_TABLE_SQL);
    assert.not.match(EVENTS_TABLE_SQL, /AUTOINCREMENT/);
    assert.equal(schema(migrated), schema(fresh));
    assert.equal(migrated.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'events'").get(), rootBefore);
    assert.equal(migrated.prepare('SELECT * FROM events ORDER BY id').all(), rowsBefore);
    assert.equal(migrated.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    // The sequence moved to the high-water mark; the other AUTOINCREMENT tables keep theirs.
    assert.is(sequenceOf(migrated, 'events'), undefined);
    assert.is(highWater(migrated), 2000);
    assert.is(highWater(fresh), 0);
    assert.equal(append(migrated, 3), [2001, 2002, 2003]);
    assert.equal(append(fresh, 3), [1, 2, 3]);
  });
});

test('a version-5 file whose newest rows retention already deleted (sequence above max(id)) does not reuse their ids', () => {
  withFiles((open) => {
    const db = open('v5.db');
    seedV5(db, 100);
    db.prepare('DELETE FROM events WHERE id > 60').run();
    assert.is(sequenceOf(db, 'events'), 100);
    migrate(db, silentLogger);
    const journal = new EventJournal(db);
    assert.is(journal.maxId(), 100);
    assert.equal(append(db, 5), [101, 102, 103, 104, 105]);
    assert.equal(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
  });
});

test('a version-5 file whose journal retention emptied goes on above the old sequence', () => {
  withFiles((open) => {
    const db = open('v5.db');
    seedV5(db, 40);
    db.prepare('DELETE FROM events').run();
    migrate(db, silentLogger);
    assert.is(new EventJournal(db).maxId(), 40);
    assert.equal(append(db, 2), [41, 42]);
  });
});

test('the migrated file reopened from disk keeps the new schema and the high-water mark', () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'v.db');
    const first = openDatabase(path);
    seedV5(first, 10);
    first.prepare('DELETE FROM events WHERE id > 4').run();
    migrate(first, silentLogger);
    first.close();
    const again = openDatabase(path);
    assert.is(schemaVersion(again), MIGRATIONS.length);
    assert.is(eventsSql(again), EVENTS_TABLE_SQL);
    assert.equal(append(again, 1), [11]);
    again.close();
  } finally {
    dir.remove();
  }
});

test('an events table that is not the one migration 4 left fails the migration and leaves version 5 untouched', () => {
  withFiles((open) => {
    const db = open('odd.db');
    seedV5(db, 3);
    // A hand-made change the migration must not paper over (an extra column).
    db.exec('ALTER TABLE events ADD COLUMN note TEXT');
    const sqlBefore = eventsSql(db);
    try {
      migrate(db, silentLogger);
      assert.unreachable('the migration must refuse');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match((err as Error).message, /migration 6/);
    }
    assert.is(schemaVersion(db), 5);
    assert.is(eventsSql(db), sqlBefore);
    assert.is(sequenceOf(db, 'events'), 3);
    assert.is(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'events_high_water'").get(), undefined);
  });
});

test('after the migration a one-row commit writes one WAL frame: no sqlite_sequence page any more', () => {
  const dir = tempDir();
  try {
    // Version 5, AUTOINCREMENT: every commit writes the events leaf and the sqlite_sequence page.
    const v5Path = join(dir.path, 'v5.db');
    const v5 = openDatabase(v5Path);
    migrate(v5, silentLogger, V5);
    const insert = v5.prepare(
      "INSERT INTO events (received_at, account, protocol, event_class, raw) VALUES (1, 'A', 'SIA-DCS', 'alarm', x'0A')",
    );
    const before = walFramesPerCommit(v5, v5Path, () => insert.run());
    v5.close();
    const v6Path = join(dir.path, 'v6.db');
    const v6 = openDatabase(v6Path);
    migrate(v6, silentLogger);
    const journal = new EventJournal(v6);
    const after = walFramesPerCommit(v6, v6Path, () => journal.appendRows([toInsertParams(sampleEvent())]));
    v6.close();
    // The minimum: a commit that also splits the leaf writes more frames, in both versions.
    assert.is(Math.min(...before), 2, `version 5 frames per commit: ${before.join(',')}`);
    assert.is(Math.min(...after), 1, `version 6 frames per commit: ${after.join(',')}`);
  } finally {
    dir.remove();
  }
});

/** WAL frames each of 12 one-row commits appended (the WAL grows by page size + 24 per frame). */
function walFramesPerCommit(db: Database, path: string, commit: () => void): number[] {
  const frameBytes = (db.pragma('page_size', { simple: true }) as number) + 24;
  commit();
  const counts: number[] = [];
  for (let i = 0; i < 12; i++) {
    const size = statSync(`${path}-wal`).size;
    commit();
    counts.push((statSync(`${path}-wal`).size - size) / frameBytes);
  }
  return counts;
}

test.run();
