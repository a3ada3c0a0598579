/**
 * EventJournal.appendRows assigns ids itself (the highest id ever assigned + 1, 2, ...) and inserts
 * several rows per INSERT statement; these tests check every returned id against the table itself,
 * for batch sizes around the chunk size, after rolled-back batches, and that no id is ever reused:
 * after retention emptied the table, after deletes took the newest rows (in any order), across a
 * restart (docs/store.md "Event ids").
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { EventJournal, ROWS_PER_INSERT } from '../../src/store/event-journal.js';
import { toInsertParams, type EventInsertParams } from '../../src/store/journal-columns.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { migrate } from '../../src/store/migrations.js';
import { tempDir } from '../helpers/temp-dir.js';
import { sampleEvent } from './helpers/store-fixture.js';

const SIZES = [1, 15, 16, 17, 31, 32, 33, 100, 1000];

/** Rows whose account names the batch and the position: `b<batch>-<i>`. */
function rows(batch: string, count: number, overrides: Partial<NewEvent> = {}): EventInsertParams[] {
  return Array.from({ length: count }, (_, i) =>
    toInsertParams(sampleEvent({ account: `${batch}-${i}`, ...overrides })),
  );
}

/** 40 rows of `batch` whose 36th the CHECK refuses: at 16 rows per INSERT, the third INSERT fails. */
function refusedInThirdInsert(batch: string): EventInsertParams[] {
  const bad = rows(batch, 40);
  bad[35] = toInsertParams(sampleEvent({ account: `${batch}-35`, eventClass: 'panic' as NewEvent['eventClass'] }));
  return bad;
}

/** The ids the table holds for a batch, in input order. */
function storedIds(db: Database, batch: string): number[] {
  const found = db.prepare('SELECT id, account FROM events WHERE account LIKE ? ORDER BY id').all(`${batch}-%`) as {
    id: number;
    account: string;
  }[];
  const ids: number[] = [];
  for (const row of found) ids[Number(row.account.slice(batch.length + 1))] = row.id;
  return ids;
}

function withJournal(rowsPerInsert: number | undefined, run: (journal: EventJournal, db: Database) => void): void {
  const dir = tempDir();
  const db = openDatabase(join(dir.path, 'ids.db'));
  try {
    migrate(db, silentLogger);
    run(new EventJournal(db, rowsPerInsert === undefined ? {} : { rowsPerInsert }), db);
  } finally {
    db.close();
    dir.remove();
  }
}

function allIds(db: Database): number[] {
  return (db.prepare('SELECT id FROM events ORDER BY id').all() as { id: number }[]).map((r) => r.id);
}

for (const rowsPerInsert of [undefined, 1, 7, 32]) {
  const label = rowsPerInsert === undefined ? `the default ${ROWS_PER_INSERT}` : String(rowsPerInsert);
  test(`ids returned in input order equal the stored ids, ${label} rows per INSERT, batches of ${SIZES.join(', ')}`, () => {
    withJournal(rowsPerInsert, (journal, db) => {
      let expectedNext = 1;
      for (const size of SIZES) {
        const ids = journal.appendRows(rows(`b${size}`, size));
        assert.equal(ids, storedIds(db, `b${size}`));
        assert.equal(
          ids,
          Array.from({ length: size }, (_, i) => expectedNext + i),
        );
        expectedNext += size;
      }
      assert.is(allIds(db).length, expectedNext - 1);
      assert.is(journal.maxId(), expectedNext - 1);
    });
  });
}

test('a batch refused in its third INSERT stores nothing, and the next batch gets exactly the ids the table gives it', () => {
  withJournal(16, (journal, db) => {
    assert.equal(journal.appendRows(rows('first', 17)), storedIds(db, 'first'));
    const bad = refusedInThirdInsert('bad');
    try {
      journal.appendRows(bad);
      assert.unreachable('the CHECK must refuse the batch');
    } catch (err) {
      assert.ok(isVigilError(err, 'CONFLICT'));
    }
    assert.equal(storedIds(db, 'bad'), []);
    // The rolled-back ids were never committed (no cursor can point past them): ids go on from 18.
    const next = journal.appendRows(rows('next', 33));
    assert.equal(next, storedIds(db, 'next'));
    assert.equal(
      next,
      Array.from({ length: 33 }, (_, i) => 18 + i),
    );
  });
});

test('inside a caller transaction that rolls back, then one that commits, the ids are the stored ones', () => {
  withJournal(undefined, (journal, db) => {
    journal.appendRows(rows('a', 5));
    const rolledBack = db.transaction(() => {
      journal.appendRows(rows('gone', 20));
      throw new Error('caller fails after the append');
    });
    assert.throws(() => rolledBack(), /caller fails/);
    assert.equal(storedIds(db, 'gone'), []);
    const committed = db.transaction(() => [journal.appendRows(rows('x', 17)), journal.appendRows(rows('y', 3))]);
    const [x, y] = committed();
    assert.equal(x, storedIds(db, 'x'));
    assert.equal(y, storedIds(db, 'y'));
    assert.equal(
      allIds(db),
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
  });
});

test("refused in its third INSERT inside a caller transaction: the caller's whole transaction stores nothing, earlier appends included", () => {
  withJournal(16, (journal, db) => {
    journal.appendRows(rows('first', 3));
    const bad = refusedInThirdInsert('bad');
    const caller = db.transaction(() => {
      journal.appendRows(rows('before', 5));
      journal.appendRows(bad);
    });
    assert.throws(
      () => caller(),
      (err: unknown) => isVigilError(err, 'CONFLICT'),
    );
    assert.equal(storedIds(db, 'before'), []);
    assert.equal(storedIds(db, 'bad'), []);
    assert.equal(journal.appendRows(rows('next', 2)), [4, 5]);
  });
});

test('after the newest rows were deleted their ids are not reused, and the returned ids follow', () => {
  withJournal(undefined, (journal, db) => {
    journal.appendRows(rows('old', 50));
    db.prepare('DELETE FROM events WHERE id > 20').run();
    assert.is(journal.maxId(), 50);
    const ids = journal.appendRows(rows('new', 40));
    assert.equal(ids, storedIds(db, 'new'));
    assert.equal(
      ids,
      Array.from({ length: 40 }, (_, i) => 51 + i),
    );
  });
});

test('deletes in any order (newest first, one by one, a middle range, everything) never let an id come back', () => {
  withJournal(undefined, (journal, db) => {
    journal.appendRows(rows('a', 30));
    for (let id = 30; id > 25; id--) db.prepare('DELETE FROM events WHERE id = ?').run(id);
    assert.equal(journal.appendRows(rows('b', 2)), [31, 32]);
    db.prepare('DELETE FROM events WHERE id BETWEEN 10 AND 31').run();
    assert.equal(journal.appendRows(rows('c', 1)), [33]);
    // One statement deleting rows in descending order of id (the trigger fires per row).
    db.prepare('DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id DESC)').run();
    assert.equal(allIds(db), []);
    assert.is(journal.maxId(), 33);
    assert.equal(
      journal.appendRows(rows('d', 17)),
      Array.from({ length: 17 }, (_, i) => 34 + i),
    );
  });
});

test('retention (deleteOlderThan) emptying the journal does not reset the ids, and a batch after it is consecutive', () => {
  withJournal(undefined, (journal, db) => {
    journal.appendRows(rows('old', 120, { receivedAt: 1_000 }));
    let deleted = 0;
    for (let n = -1; n !== 0; ) deleted += n = journal.deleteOlderThan(2_000, { batchLimit: 50 });
    assert.is(deleted, 120);
    assert.equal(allIds(db), []);
    assert.is(journal.maxId(), 120);
    const ids = journal.appendRows(rows('new', 33, { receivedAt: 3_000 }));
    assert.equal(ids, storedIds(db, 'new'));
    assert.equal(
      ids,
      Array.from({ length: 33 }, (_, i) => 121 + i),
    );
  });
});

test('a missing high-water row fails the append (STORE_FAILURE, nothing stored) instead of guessing an id', () => {
  withJournal(undefined, (journal, db) => {
    journal.appendRows(rows('a', 3));
    db.prepare('DELETE FROM events_high_water').run();
    assert.throws(
      () => journal.appendRows(rows('b', 2)),
      (err: Error) => isVigilError(err, 'STORE_FAILURE'),
    );
    assert.throws(
      () => journal.maxId(),
      (err: Error) => isVigilError(err, 'STORE_FAILURE'),
    );
    assert.equal(allIds(db), [1, 2, 3]);
  });
});

test('append() (events, not rows) takes the same path: ids and receivedAt in input order', () => {
  withJournal(undefined, (journal, db) => {
    const events = Array.from({ length: 37 }, (_, i) => sampleEvent({ account: `e-${i}`, receivedAt: 1000 + i }));
    const refs = journal.append(events);
    assert.equal(
      refs.map((r) => r.id),
      storedIds(db, 'e'),
    );
    assert.equal(
      refs.map((r) => r.receivedAt),
      events.map((e) => e.receivedAt),
    );
  });
});

test('a rows-per-INSERT count SQLite cannot bind is refused before anything is written', () => {
  for (const rowsPerInsert of [0, 1.5, 2000]) {
    withJournal(rowsPerInsert, (journal, db) => {
      assert.throws(
        () => journal.appendRows(rows('z', 3)),
        (err: Error) => isVigilError(err, 'INTERNAL'),
      );
      assert.equal(allIds(db), []);
    });
  }
});

test.run();
