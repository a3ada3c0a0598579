/**
 * Where a gateway's bytes went, by the file each flush made durable (bench/lib/slowsync.c,
 * SLOWSYNC_STATS): the store's WAL (every commit, journal or not, and a checkpoint's first step),
 * its main file (a checkpoint copying pages back), anything else. Each flush counts the bytes its
 * thread caused to be written since that thread's previous flush (`write_bytes`), so a commit's
 * pages count with the commit's flush and a checkpoint's with the main file's. The shim counts in
 * any build the bench starts (it is loaded into the process, not built into Vigil), so two builds
 * split alike.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FileFlushes {
  readonly flushes: number;
  readonly bytes: number;
}

export interface FlushSplit {
  /** The store's WAL (`…-wal`). */
  readonly wal: FileFlushes;
  /** The store's main file (`….db`): checkpoints. */
  readonly db: FileFlushes;
  readonly other: FileFlushes;
}

const KINDS = ['wal', 'db', 'other'] as const;
const BYTES = KINDS.length * 2 * 8;

/** A fresh counters file for SLOWSYNC_STATS (zeroes), in its own temp dir. */
export function flushStatsFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'vigil-flush-split-')), 'flushes');
  writeFileSync(path, Buffer.alloc(BYTES));
  return path;
}

/** The counters now; null when the file is missing or short (the shim never counted). */
export function readFlushSplit(path: string): FlushSplit | null {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return null;
  }
  if (data.length < BYTES) return null;
  const word = (i: number): number => Number(data.readBigUInt64LE(i * 8));
  const kind = (k: number): FileFlushes => ({ flushes: word(k * 2), bytes: word(k * 2 + 1) });
  return { wal: kind(0), db: kind(1), other: kind(2) };
}

/**
 * The commits other than the journal's `journalCommits` (write commands, the output's cursor, the
 * sightings sweep) among the WAL's flushes: every commit flushes the WAL once, and a checkpoint twice,
 * its own flush before it copies pages back and the header of the WAL restarted by the next commit
 * (SQLite, synchronous=FULL: 3,000 one-row commits with 5 checkpoints flush the WAL 3,010 times;
 * test/bench/flush-split.test.ts). One less when the window ends between a checkpoint and the next commit.
 */
export function otherCommits(split: FlushSplit, journalCommits: number): number {
  return split.wal.flushes - journalCommits - 2 * split.db.flushes;
}

/** What was counted between two readings; null when either is missing. */
export function flushSplitBetween(before: FlushSplit | null, after: FlushSplit | null): FlushSplit | null {
  if (!before || !after) return null;
  const diff = (k: (typeof KINDS)[number]): FileFlushes => ({
    flushes: after[k].flushes - before[k].flushes,
    bytes: after[k].bytes - before[k].bytes,
  });
  return { wal: diff('wal'), db: diff('db'), other: diff('other') };
}
