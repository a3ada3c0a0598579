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
import { flushSplitBetween, flushStatsFile, readFlushSplit } from '../../bench/lib/flush-split.js';
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
    assert.equal([split.wal.flushes, split.db.flushes, split.other.flushes], [3, 1, 1]);
    if (split.wal.bytes + split.db.bytes + split.other.bytes === 0) {
      process.stdout.write('  (the temp dir does not count write_bytes: bytes not asserted)\n');
      return;
    }
    // The kernel counts whole 4 KiB pages as they are dirtied: exact for page-sized writes.
    assert.equal([split.wal.bytes, split.db.bytes, split.other.bytes], [20 * 1024, 16 * 1024, 4 * 1024]);
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
