/**
 * The durable floor (issue 9): the bare cost of storing Vigil's own journal row durably, as a
 * bare better-sqlite3 loop: a BEGIN IMMEDIATE, `batch` INSERTs of one row each, a COMMIT, again
 * and again. The file is opened by the store's own openDatabase (WAL, synchronous=FULL, 1 KiB
 * pages, journal_size_limit), on the same file system as the gateway's; its table is the journal's
 * `events` table exactly as migration 6 leaves it (EVENTS_TABLE_SQL: 22 columns plus the id, no
 * AUTOINCREMENT, the same CHECKs, no index), the INSERT is the bare single-row statement with the
 * id left to SQLite (INSERT_EVENT_SQL) and the rows are realistic journal rows built before timing
 * (journal-sample.ts). What it leaves out is everything that is Vigil's own work: sockets,
 * parsing, the thread hop, objects and sessions, building the rows, the journal's id read per
 * batch (docs/store.md "Event ids") and the multi-row INSERTs the journal uses (one statement per
 * row here, so the floor is the plain way to store the same row).
 * Run as a child process pinned like the gateway (durableFloor() below); prints one JSON line:
 * { batch, eventsPerS, commitsPerS, bytesPerEvent, cpuUsPerEvent }.
 *
 *   node dist/bench/lib/durable-floor.js <batch> <seconds> <dir>
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/store/database.js';
import { INSERT_EVENT_SQL } from '../../src/store/event-rows.js';
import { EVENTS_TABLE_SQL } from '../../src/store/schema-v6.js';
import { sampleJournalRows } from './journal-sample.js';
import { tool } from '../../test/helpers/system-tools.js';
import { writeBytes } from './proc-io.js';

export interface FloorResult {
  readonly batch: number;
  readonly eventsPerS: number;
  readonly commitsPerS: number;
  readonly bytesPerEvent: number;
  /** User + system CPU of the loop per stored row (process.cpuUsage; the fsync wait is not CPU). */
  readonly cpuUsPerEvent: number;
}

const MAX_EVENTS = 5_000_000;

function run(batch: number, seconds: number, dir: string): FloorResult {
  const db = openDatabase(join(dir, 'floor.db'));
  db.exec(EVENTS_TABLE_SQL);
  const insert = db.prepare(INSERT_EVENT_SQL);
  const rows = sampleJournalRows();
  const commit = db.transaction((n: number, base: number) => {
    for (let i = 0; i < n; i++) insert.run(rows[(base + i) % rows.length]);
  });
  let events = 0;
  let commits = 0;
  const bytes0 = writeBytes('self');
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline && events < MAX_EVENTS) {
    commit.immediate(batch, events);
    events += batch;
    commits++;
  }
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const bytes = writeBytes('self') - bytes0;
  db.close();
  return {
    batch,
    eventsPerS: Math.round(events / elapsed),
    commitsPerS: Math.round(commits / elapsed),
    bytesPerEvent: Math.round(bytes / Math.max(1, events)),
    cpuUsPerEvent: Math.round(((cpu.user + cpu.system) / Math.max(1, events)) * 10) / 10,
  };
}

/**
 * Runs the floor loop in a child process (optionally pinned with taskset), in a temp dir under
 * `parent`, `env` added to its environment (slowsync.ts flushEnv: the flush latency).
 */
export function durableFloor(
  batch: number,
  seconds: number,
  parent: string,
  cpu: number | null,
  env: Readonly<Record<string, string>> = {},
): Promise<FloorResult> {
  const dir = mkdtempSync(join(parent, 'vigil-floor-'));
  const script = fileURLToPath(import.meta.url);
  const args = [script, String(batch), String(seconds), dir];
  const options = { timeout: (seconds + 30) * 1000, env: { ...process.env, ...env } };
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, stdout: string) => {
      rmSync(dir, { recursive: true, force: true });
      if (err) reject(err);
      else resolve(JSON.parse(stdout.trim()) as FloorResult);
    };
    if (cpu === null) execFile(process.execPath, args, options, done);
    else execFile(tool('taskset'), ['-c', String(cpu), process.execPath, ...args], options, done);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [batch, seconds, dir] = process.argv.slice(2);
  if (!dir || !existsSync(dir)) throw new Error('usage: durable-floor.js <batch> <seconds> <dir>');
  process.stdout.write(JSON.stringify(run(Number(batch), Number(seconds), dir)) + '\n');
}
