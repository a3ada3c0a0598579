/**
 * The writer thread's command group (src/writer/command-group.ts, docs/writer.md §Slow storage): the
 * commands that reach the thread in one turn commit in one transaction, each answered after that one
 * COMMIT with its own outcome; a failing command is rolled back alone; the store's own commands run
 * outside any group. Real SQLite files, the real repositories and executeWrite; a second connection
 * reads what is committed.
 */
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/migrations.js';
import { createRepos } from '../../src/store/repos.js';
import { CommandClock, executeWrite, type WriteCommand } from '../../src/store/write-commands.js';
import { CommandGroup, type CommandOutcome } from '../../src/writer/command-group.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Fixture {
  readonly db: Database;
  /** Another connection: sees only what is committed. */
  readonly reader: BetterSqlite3.Database;
  readonly group: CommandGroup;
  /** The meta value as the reader sees it now. */
  committed(key: string): string | null;
  cleanup(): void;
}

/** `intercept` runs instead of executeWrite for the commands it returns true for. */
function fixture(intercept?: (db: Database, command: WriteCommand) => boolean): Fixture {
  const dir = tempDir();
  const path = join(dir.path, 'vigil.db');
  const db = openDatabase(path);
  migrate(db, silentLogger);
  const repos = createRepos(db, new CommandClock());
  const clock = new CommandClock();
  const reader = new BetterSqlite3(path, { readonly: true });
  const group = new CommandGroup(db, (command) =>
    intercept?.(db, command) ? null : executeWrite(db, repos, clock, command),
  );
  return {
    db,
    reader,
    group,
    committed: (key) =>
      (reader.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ?? null,
    cleanup: () => {
      reader.close();
      db.close();
      dir.remove();
    },
  };
}

const set = (key: string, value: string): WriteCommand => ({ repo: 'meta', method: 'set', args: [key, value] });

/** Adds the commands in one turn; resolves with their outcomes once all are answered. */
function addAll(
  fx: Fixture,
  commands: readonly WriteCommand[],
  onAnswer?: (index: number) => void,
): Promise<CommandOutcome[]> {
  return new Promise((resolve) => {
    const outcomes: CommandOutcome[] = [];
    let left = commands.length;
    commands.forEach((command, i) => {
      fx.group.add(command, (outcome) => {
        outcomes[i] = outcome;
        onAnswer?.(i);
        if (--left === 0) resolve(outcomes);
      });
    });
  });
}

test('the commands of one turn commit together, and each is answered only after that commit', async () => {
  const fx = fixture();
  try {
    const seenAtAnswer: (string | null)[] = [];
    const outcomes = await addAll(
      fx,
      Array.from({ length: 20 }, (_, i) => set(`k${i}`, `v${i}`)),
      (i) => seenAtAnswer.push(fx.committed(`k${i}`)),
    );
    assert.ok(outcomes.every((o) => o.ok));
    assert.equal(fx.group.stats, { groups: 1, grouped: 20 }, 'one transaction, one flush, for all 20');
    assert.equal(
      seenAtAnswer,
      Array.from({ length: 20 }, (_, i) => `v${i}`),
      'every answer comes after the COMMIT: another connection already sees the value',
    );
    assert.is(fx.db.inTransaction, false);
  } finally {
    fx.cleanup();
  }
});

test('a command that fails is rolled back alone and answered with its own error; the others commit', async () => {
  const fx = fixture((db, command) => {
    if (command.repo !== 'meta' || command.args[0] !== 'bad') return false;
    // Writes, then fails: its write must not survive.
    db.prepare("INSERT INTO meta (key, value) VALUES ('bad', 'written')").run();
    throw new Error('refused');
  });
  try {
    const outcomes = await addAll(fx, [set('a', '1'), set('bad', 'x'), set('b', '2')]);
    assert.equal(
      outcomes.map((o) => o.ok),
      [true, false, true],
    );
    const failed = outcomes[1]!;
    assert.ok(!failed.ok && failed.error instanceof Error && failed.error.message === 'refused');
    assert.is(fx.committed('a'), '1');
    assert.is(fx.committed('b'), '2');
    assert.is(fx.committed('bad'), null, "the failing command's own write is rolled back to its savepoint");
    assert.equal(fx.group.stats, { groups: 1, grouped: 3 });
  } finally {
    fx.cleanup();
  }
});

test('an unknown command inside a group is refused with INTERNAL, as it is alone', async () => {
  const fx = fixture();
  try {
    const unknown = { repo: 'meta', method: 'drop', args: [] } as unknown as WriteCommand;
    const outcomes = await addAll(fx, [set('a', '1'), unknown]);
    const refused = outcomes[1]!;
    assert.ok(!refused.ok && isVigilError(refused.error) && refused.error.code === 'INTERNAL');
    assert.ok(outcomes[0]!.ok);
    assert.is(fx.committed('a'), '1');
  } finally {
    fx.cleanup();
  }
});

test('when SQLite ends the whole transaction, the commands run in it are answered with that error and the rest commit in a new one', async () => {
  // A command that ends the transaction stands for SQLite's own rollback on a full disk or an I/O error.
  const fx = fixture((db, command) => {
    if (command.repo !== 'meta' || command.args[0] !== 'ends') return false;
    db.exec('ROLLBACK');
    throw new Error('transaction ended');
  });
  try {
    const outcomes = await addAll(fx, [set('a', '1'), set('ends', 'x'), set('b', '2'), set('c', '3')]);
    assert.equal(
      outcomes.map((o) => (o.ok ? 'ok' : (o.error as Error).message)),
      ['transaction ended', 'transaction ended', 'ok', 'ok'],
      'the first command was not stored, so it is not answered ok',
    );
    assert.is(fx.committed('a'), null);
    assert.is(fx.committed('b'), '2');
    assert.is(fx.committed('c'), '3');
    assert.is(fx.db.inTransaction, false);
  } finally {
    fx.cleanup();
  }
});

test('a COMMIT that fails answers every command of the group with its error, and nothing is stored', async () => {
  const fx = fixture((db, command) => {
    if (command.repo !== 'meta' || command.args[0] !== 'orphan') return false;
    // A deferred foreign key is checked at COMMIT: the whole transaction's COMMIT fails.
    db.exec('CREATE TABLE IF NOT EXISTS t_parent (id INTEGER PRIMARY KEY)');
    db.exec('CREATE TABLE IF NOT EXISTS t_child (p INTEGER REFERENCES t_parent (id) DEFERRABLE INITIALLY DEFERRED)');
    db.exec('INSERT INTO t_child (p) VALUES (42)');
    return true;
  });
  try {
    const outcomes = await addAll(fx, [set('a', '1'), set('orphan', 'x'), set('b', '2')]);
    assert.ok(outcomes.every((o) => !o.ok));
    assert.is(fx.committed('a'), null);
    assert.is(fx.committed('b'), null);
    assert.is(fx.db.inTransaction, false, 'rolled back: the next group starts clean');
    const next = await addAll(fx, [set('d', '4'), set('e', '5')]);
    assert.ok(next.every((o) => o.ok));
    assert.is(fx.committed('e'), '5');
  } finally {
    fx.cleanup();
  }
});

test("the store's own commands run alone, between the groups before and after them", async () => {
  const fx = fixture();
  try {
    const checkpoint: WriteCommand = { repo: 'store', method: 'checkpoint', args: ['PASSIVE'] };
    const outcomes = await addAll(fx, [set('a', '1'), set('b', '2'), checkpoint, set('c', '3'), set('d', '4')]);
    assert.ok(
      outcomes.every((o) => o.ok),
      JSON.stringify(outcomes),
    );
    assert.equal(fx.group.stats, { groups: 2, grouped: 4 }, 'a checkpoint cannot run inside a transaction');
    assert.is(fx.committed('d'), '4');
  } finally {
    fx.cleanup();
  }
});

test('a command alone runs as it always did, outside any group', async () => {
  const fx = fixture();
  try {
    const [outcome] = await addAll(fx, [set('a', '1')]);
    assert.ok(outcome!.ok);
    assert.equal(fx.group.stats, { groups: 0, grouped: 0 });
    assert.is(fx.committed('a'), '1');
    const later = await addAll(fx, [set('b', '2')]);
    assert.ok(later[0]!.ok, 'a later turn makes its own group');
  } finally {
    fx.cleanup();
  }
});

test.run();
