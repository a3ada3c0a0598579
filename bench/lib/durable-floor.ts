/**
 * The durable floor (issue 9): a bare better-sqlite3 insert + COMMIT loop, WAL, synchronous=FULL,
 * on the same file system as the gateway, with a row as wide as a journal row. Run as a child
 * process pinned like the gateway (durableFloor() below); prints one JSON line:
 * { batch, eventsPerS, commitsPerS, bytesPerEvent }.
 *
 *   node dist/bench/lib/durable-floor.js <batch> <seconds> <dir>
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { writeBytes } from './proc-io.js';

export interface FloorResult {
  readonly batch: number;
  readonly eventsPerS: number;
  readonly commitsPerS: number;
  readonly bytesPerEvent: number;
}

const MAX_EVENTS = 5_000_000;

function run(batch: number, seconds: number, dir: string): FloorResult {
  const db = new BetterSqlite3(join(dir, 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, received_at INTEGER NOT NULL,
    receiver_id INTEGER, transport TEXT, remote_address TEXT, object_id INTEGER, account TEXT NOT NULL, sequence TEXT,
    protocol TEXT NOT NULL, code TEXT, zone_no TEXT, flags INTEGER NOT NULL, raw BLOB NOT NULL)`);
  const insert = db.prepare('INSERT INTO events (received_at, receiver_id, transport, remote_address, object_id, account, sequence, protocol, code, zone_no, flags, raw) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)');
  const raw = Buffer.from('"SIA-DCS"0001R1L1#100001[#100001|Nri01/BA003]');
  const commit = db.transaction((n: number, base: number) => {
    for (let i = 0; i < n; i++) insert.run(Date.now(), 1, 'tcp', '127.0.0.1:40000', 1 + ((base + i) % 1000), '100001', '0001', 'SIA-DCS', 'BA', '003', 0, raw);
  });
  let events = 0;
  let commits = 0;
  const bytes0 = writeBytes('self');
  const started = performance.now();
  const deadline = started + seconds * 1000;
  while (performance.now() < deadline && events < MAX_EVENTS) {
    commit.immediate(batch, events);
    events += batch;
    commits++;
  }
  const elapsed = (performance.now() - started) / 1000;
  const bytes = writeBytes('self') - bytes0;
  db.close();
  return { batch, eventsPerS: Math.round(events / elapsed), commitsPerS: Math.round(commits / elapsed), bytesPerEvent: Math.round(bytes / Math.max(1, events)) };
}

/** Runs the floor loop in a child process (optionally pinned with taskset), in a temp dir under `parent`. */
export function durableFloor(batch: number, seconds: number, parent: string, cpu: number | null): Promise<FloorResult> {
  const dir = mkdtempSync(join(parent, 'vigil-floor-'));
  const script = fileURLToPath(import.meta.url);
  const args = [script, String(batch), String(seconds), dir];
  const [cmd, argv] = cpu === null ? [process.execPath, args] : ['taskset', ['-c', String(cpu), process.execPath, ...args]];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { timeout: (seconds + 30) * 1000 }, (err, stdout) => {
      rmSync(dir, { recursive: true, force: true });
      if (err) reject(err);
      else resolve(JSON.parse(stdout.trim()) as FloorResult);
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [batch, seconds, dir] = process.argv.slice(2);
  if (!dir || !existsSync(dir)) throw new Error('usage: durable-floor.js <batch> <seconds> <dir>');
  process.stdout.write(JSON.stringify(run(Number(batch), Number(seconds), dir)) + '\n');
}
