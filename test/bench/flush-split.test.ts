/**
 * The slowsync shim's flush counters (bench/lib/slowsync.c, SLOWSYNC_STATS) read by
 * bench/lib/flush-split.ts, in a real child process under the shim: each flush counts against the
 * kind of file it made durable, with the bytes its thread wrote before it. Bytes are asserted only
 * where the kernel counts them for the temp dir's file system (a tmpfs has no writeback).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { flushSplitBetween, flushStatsFile, otherCommits, readFlushSplit } from '../../bench/lib/flush-split.js';
import { flushEnv } from '../../bench/lib/slowsync.js';

/** Writes `kib` KiB to `file` and flushes it (`sync`: fdatasync, else fsync), in order. */
const SCRIPT = `const fs = require('node:fs');
for (const [file, kib, sync] of JSON.parse(process.argv[1])) {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, Buffer.alloc(kib * 1024, 1));
  if (sync) fs.fdatasyncSync(fd); else fs.fsyncSync(fd);
  fs.closeSync(fd);
}`;

test('each flush counts against its file: the WAL, the main file, any other, with the bytes written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-flush-split-test-'));
  const stats = flushStatsFile();
  try {
    const before = readFlushSplit(stats);
    const steps = [
      // The thread's first flush also counts what it wrote since it started: a file of no kind first.
      [join(dir, 'start.log'), 4, false],
      [join(dir, 'vigil.db-wal'), 8, true],
      [join(dir, 'vigil.db-wal'), 8, true],
      [join(dir, 'vigil.db'), 16, false],
      [join(dir, 'vigil.db-wal'), 4, true],
      [join(dir, 'other.log'), 4, false],
    ];
    execFileSync(process.execPath, ['-e', SCRIPT, JSON.stringify(steps)], {
      env: { ...process.env, ...flushEnv(0, stats) },
      timeout: 30_000,
    });
    const split = flushSplitBetween(before, readFlushSplit(stats));
    assert.ok(split, 'counters read');
    assert.equal([split.wal.flushes, split.db.flushes, split.other.flushes], [3, 1, 2]);
    if (split.wal.bytes + split.db.bytes + split.other.bytes === 0) {
      process.stdout.write('  (the temp dir does not count write_bytes: bytes not asserted)\n');
      return;
    }
    // The kernel counts whole 4 KiB pages as they are dirtied: exact for page-sized writes.
    assert.equal([split.wal.bytes, split.db.bytes], [20 * 1024, 16 * 1024]);
    assert.ok(split.other.bytes >= 8 * 1024, `other: ${split.other.bytes} B`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(stats), { recursive: true, force: true });
  }
});

/** `commits` one-row commits on the store's own connection (openDatabase: WAL, synchronous=FULL, 1 KiB pages). */
const COMMITS_SCRIPT = `const { openDatabase } = await import(process.argv[1]);
const db = openDatabase(process.argv[2]);
db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
const n = Number(process.argv[3]);
for (let i = 0; i < n; i++) insert.run('x'.repeat(300));
// Ends without closing: a close checkpoints once more, which no storm's window holds.
process.exit(0);`;

test("the store's commits: one WAL flush each and two per checkpoint, so no other commit is counted", () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-flush-split-test-'));
  const stats = flushStatsFile();
  try {
    const database = new URL('../../src/store/database.js', import.meta.url).href;
    const commits = 2500;
    // The table's creation is one more commit.
    execFileSync(
      process.execPath,
      ['--input-type=module', '-e', COMMITS_SCRIPT, database, join(dir, 'vigil.db'), String(commits)],
      { env: { ...process.env, ...flushEnv(0, stats) }, timeout: 120_000 },
    );
    const split = readFlushSplit(stats);
    assert.ok(split, 'counters read');
    // 2,501 commits of about two frames each: the WAL passes 1,000 frames several times.
    assert.ok(split.db.flushes >= 3, `${split.db.flushes} checkpoints`);
    // A checkpoint on the last commit has no restarted WAL after it: 0, or -1 at that edge (with one
    // flush per checkpoint the count would be +checkpoints).
    const other = otherCommits(split, commits + 1);
    assert.ok(other === 0 || other === -1, `${other} other commits`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dirname(stats), { recursive: true, force: true });
  }
});

test('without the shim counting, nothing is read as a split', () => {
  const stats = flushStatsFile();
  try {
    assert.equal(readFlushSplit(join(dirname(stats), 'missing')), null);
    assert.equal(flushSplitBetween(null, readFlushSplit(stats)), null);
    assert.equal(readFlushSplit(stats), {
      wal: { flushes: 0, bytes: 0 },
      db: { flushes: 0, bytes: 0 },
      other: { flushes: 0, bytes: 0 },
    });
  } finally {
    rmSync(dirname(stats), { recursive: true, force: true });
  }
});

test.run();
