/**
 * Journal row cost (issue 9): CPU per stored event of EventJournal.appendRows on a real store file
 * (openDatabase + the migrations, as Store.start does: WAL, synchronous=FULL, 1 KiB pages), one
 * transaction per batch of 1, 10 or 100 rows. Cases:
 *   - `v3 IN, 1/stmt`: the journal as it was before migration 4 (IN-list CHECKs), one INSERT per row;
 *   - `v4 OR, 1/stmt`: after migration 4 (OR-chain CHECKs), one INSERT per row;
 *   - `v4 OR, N/stmt`: after migration 4, N rows per INSERT (EventJournal's rowsPerInsert).
 * Prints user and system CPU µs per row (process.cpuUsage, this process only: the commit's fsync
 * wait is not CPU) and rows/s; with several rounds, the median of each figure. Rows are built before
 * timing (as the writer thread receives them); each case runs on a fresh file for `seconds` or at
 * most MAX_ROWS rows. Run it pinned, like the other benchmarks:
 *
 *   taskset -c 1 node dist/bench/journal-rows.js [seconds=2] [rounds=1] [batches=1,10,100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { openDatabase } from '../src/store/database.js';
import { EventJournal } from '../src/store/event-journal.js';
import type { EventInsertParams } from '../src/store/event-rows.js';
import { MIGRATIONS, migrate } from '../src/store/migrations.js';
import { sampleJournalRows } from './lib/journal-sample.js';
import { formatTable } from './lib/table.js';

const MAX_ROWS = 2_000_000;
const DEFAULT_BATCHES = '1,10,100';

interface Variant {
  readonly label: string;
  readonly schemaVersion: number;
  readonly rowsPerInsert: number;
}

const VARIANTS: readonly Variant[] = [
  { label: 'v3 IN, 1/stmt', schemaVersion: 3, rowsPerInsert: 1 },
  { label: 'v4 OR, 1/stmt', schemaVersion: 4, rowsPerInsert: 1 },
  ...[8, 16, 32, 64].map((n) => ({ label: `v4 OR, ${n}/stmt`, schemaVersion: 4, rowsPerInsert: n })),
];

interface Figures {
  readonly userUs: number;
  readonly sysUs: number;
  readonly rowsPerS: number;
}

function runCase(variant: Variant, batch: number, seconds: number, pool: readonly EventInsertParams[]): Figures {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-rows-'));
  const db = openDatabase(join(dir, 'journal.db'));
  try {
    migrate(db, silentLogger, MIGRATIONS.slice(0, variant.schemaVersion));
    const journal = new EventJournal(db, { rowsPerInsert: variant.rowsPerInsert });
    const batches = Array.from({ length: pool.length }, (_, i) => Array.from({ length: batch }, (_, j) => pool[(i + j) % pool.length]!));
    journal.appendRows(batches[0]!); // prepares the statements outside the timing
    let rows = 0;
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    for (let i = 0; performance.now() < deadline && rows < MAX_ROWS; i++) {
      journal.appendRows(batches[i % batches.length]!);
      rows += batch;
    }
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return { userUs: cpu.user / rows, sysUs: cpu.system / rows, rowsPerS: rows / elapsed };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function main(): void {
  const seconds = Number(process.argv[2] ?? 2);
  const rounds = Math.max(1, Number(process.argv[3] ?? 1));
  const batches = (process.argv[4] ?? DEFAULT_BATCHES).split(',').map(Number);
  const pool = sampleJournalRows();
  process.stdout.write(`journal row cost: ${seconds} s per case, ${rounds} round(s), files under ${tmpdir()}\n`);
  const results = new Map<string, Figures[]>();
  // Rounds outermost and variants interleaved, so a load change hits every variant alike.
  for (let round = 0; round < rounds; round++) {
    for (const batch of batches) {
      for (const variant of VARIANTS) {
        const key = `${batch}|${variant.label}`;
        results.set(key, [...(results.get(key) ?? []), runCase(variant, batch, seconds, pool)]);
      }
    }
  }
  const rows = [];
  for (const batch of batches) {
    for (const variant of VARIANTS) {
      const all = results.get(`${batch}|${variant.label}`)!;
      const user = median(all.map((f) => f.userUs));
      const sys = median(all.map((f) => f.sysUs));
      rows.push([String(batch), variant.label, user.toFixed(2), sys.toFixed(2), (user + sys).toFixed(2), Math.round(median(all.map((f) => f.rowsPerS)))]);
    }
  }
  process.stdout.write(formatTable(['batch', 'case', 'user µs/row', 'sys µs/row', 'cpu µs/row', 'rows/s'], rows) + '\n');
}

main();
