/**
 * Data across versions (docs/store.md "Data across versions"): after a rollback the older build starts
 * on the file the newer one migrated, as long as every newer migration was additive; a migration that
 * changes what older code reads raises the floor, and the older build then refuses the file untouched.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase } from '../../src/store/database.js';
import {
  MIGRATIONS,
  READABLE_FROM_KEY,
  migrate,
  readableFrom,
  schemaVersion,
  type Migration,
} from '../../src/store/migrations.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';

const N = MIGRATIONS.length;
/** This build's own floor: the highest readableFrom of its migrations. */
const FLOOR = Math.max(...MIGRATIONS.map((m) => m.readableFrom));
/** The next build's migration: a new table and a defaulted column older code never names. */
const ADDITIVE: Migration = {
  version: N + 1,
  name: 'test: additive',
  up: 'CREATE TABLE update_check_extra (id INTEGER PRIMARY KEY, note TEXT); ALTER TABLE objects ADD COLUMN update_check_flag INTEGER NOT NULL DEFAULT 0;',
  readableFrom: N,
};
/** A migration older code cannot live with (it renames a column older code reads and writes). */
const BREAKING: Migration = {
  version: N + 2,
  name: 'test: breaking',
  up: 'ALTER TABLE users RENAME COLUMN token_time TO token_minutes;',
  readableFrom: N + 2,
};

test('each migration records the floor; files from before the rule read as their own version', () => {
  const dir = tempDir();
  try {
    const db = openDatabase(join(dir.path, 'v.db'));
    migrate(db, silentLogger);
    assert.is(readableFrom(db), FLOOR);
    db.prepare('DELETE FROM meta WHERE key = ?').run(READABLE_FROM_KEY);
    assert.is(readableFrom(db), N, 'no record: the file is readable from its own version only');
    migrate(db, silentLogger, [...MIGRATIONS, ADDITIVE]);
    assert.is(readableFrom(db), N, 'an additive migration keeps the floor');
    db.close();
  } finally {
    dir.remove();
  }
});

test('after a rollback the older build opens the newer file, reads and writes it, and leaves it at the newer version', async () => {
  const dir = tempDir();
  const path = join(dir.path, 'vigil.db');
  try {
    // The newer build: migrates with one additive migration and journals an event.
    const newer = openDatabase(path);
    migrate(newer, silentLogger, [...MIGRATIONS, ADDITIVE]);
    newer.close();
    const store = new Store(path, silentLogger);
    await store.start();
    try {
      await store.write.meta.set('written_by', 'older build');
      assert.is(store.meta.get('written_by'), 'older build');
      await store.write.events.append([
        {
          receivedAt: 1,
          receiverId: null,
          receiverKind: null,
          objectId: null,
          account: '1234',
          protocol: 'SIA-DCS',
          encrypted: false,
          eventClass: 'alarm',
          qualifier: 'E',
          code: '130',
          groupNo: '01',
          zoneNo: '001',
          text: 'burglary',
          flags: 0,
          raw: Buffer.from('x'),
        },
      ]);
      assert.is(store.events.query({ receiverIds: null, limit: 10 }).items.length, 1);
    } finally {
      await store.stop();
    }
    const after = openDatabase(path);
    assert.is(schemaVersion(after), N + 1, 'never migrated down');
    assert.ok(
      after.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'update_check_extra'").get(),
      'the newer table is kept',
    );
    after.close();
  } finally {
    dir.remove();
  }
});

test('a breaking migration raises the floor: the older build refuses the file and leaves it as it was', async () => {
  const dir = tempDir();
  const path = join(dir.path, 'vigil.db');
  try {
    const newer = openDatabase(path);
    migrate(newer, silentLogger, [...MIGRATIONS, ADDITIVE, BREAKING]);
    assert.is(readableFrom(newer), N + 2);
    newer.close();
    const store = new Store(path, silentLogger);
    try {
      await store.start();
      assert.unreachable('the older build must refuse');
    } catch (err) {
      assert.ok(isVigilError(err, 'STORE_FAILURE'));
      assert.match(
        (err as Error).message,
        `database schema version ${N + 2} is newer than this Vigil build supports (${N}) and needs a build that knows version ${N + 2}`,
      );
    }
    const after = openDatabase(path, { readonly: true });
    assert.is(schemaVersion(after), N + 2);
    after.close();
  } finally {
    dir.remove();
  }
});

test('every migration of this build states a floor no higher than itself and never lowers it', () => {
  let floor = 0;
  for (const m of MIGRATIONS) {
    assert.ok(m.readableFrom >= 1 && m.readableFrom <= m.version, `${m.version}: readableFrom ${m.readableFrom}`);
    floor = Math.max(floor, m.readableFrom);
  }
  assert.ok(floor <= N);
});

test.run();
