/**
 * Journal row cost (issue 9): CPU and bytes written per stored event of EventJournal.appendRows on
 * a real store file (openDatabase + every migration, as Store.start does: WAL, synchronous=FULL,
 * 1 KiB pages), one transaction per batch of 1, 10 or 100 rows. Cases: `N/stmt`, N rows per INSERT
 * statement (EventJournal's rowsPerInsert; 16 is the default). The journal as it was before
 * migrations 4 (IN-list CHECKs) and 6 (AUTOINCREMENT) cannot run on this code: what they
 * changed is in docs/store.md (§Migration 4, §Event ids).
 * Prints user and system CPU µs per row (process.cpuUsage, this process only: the commit's fsync
 * wait is not CPU), bytes written per row (/proc/self/io write_bytes: the WAL and the checkpoints;
 * at batch 1, the bytes of a one-row commit) and rows/s; with several rounds, the median of each
 * figure. Rows are built before timing (as the writer thread receives them); each case runs on a
 * fresh file for `seconds` or at most MAX_ROWS rows. Run it pinned, like the other benchmarks:
 *
 *   taskset -c 1 node dist/bench/journal-rows.js [seconds=2] [rounds=1] [batches=1,10,100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { openDatabase } from '../src/store/database.js';
import { EventJournal } from '../src/store/event-journal.js';
import type { EventInsertParams } from '../src/store/journal-columns.js';
import { migrate } from '../src/store/migrations.js';
import { sampleJournalRows } from './lib/journal-sample.js';
import { writeBytes } from './lib/proc-io.js';
import { formatTable, median } from './lib/table.js';

const MAX_ROWS = 2_000_000;
const DEFAULT_BATCHES = '1,10,100';

interface Variant {
  readonly label: string;
  readonly rowsPerInsert: number;
}

const VARIANTS: readonly Variant[] = [1, 8, 16, 32, 64].map((n) => ({ label: `${n}/stmt`, rowsPerInsert: n }));

interface Figures {
  readonly userUs: number;
  readonly sysUs: number;
  readonly bytes: number;
  readonly rowsPerS: number;
}

function runCase(variant: Variant, batch: number, seconds: number, pool: readonly EventInsertParams[]): Figures {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-rows-'));
  const db = openDatabase(join(dir, 'journal.db'));
  try {
    migrate(db, silentLogger);
    const journal = new EventJournal(db, { rowsPerInsert: variant.rowsPerInsert });
    const batches = Array.from({ length: pool.length }, (_, i) =>
      Array.from({ length: batch }, (_, j) => pool[(i + j) % pool.length]!),
    );
    journal.appendRows(batches[0]!); // prepares the statements outside the timing
    let rows = 0;
    const bytes0 = writeBytes('self');
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    const deadline = started + seconds * 1000;
    for (let i = 0; performance.now() < deadline && rows < MAX_ROWS; i++) {
      journal.appendRows(batches[i % batches.length]!);
      rows += batch;
    }
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return {
      userUs: cpu.user / rows,
      sysUs: cpu.system / rows,
      bytes: (writeBytes('self') - bytes0) / rows,
      rowsPerS: rows / elapsed,
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
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
      const bytes = Math.round(median(all.map((f) => f.bytes)));
      rows.push([
        String(batch),
        variant.label,
        user.toFixed(2),
        sys.toFixed(2),
        (user + sys).toFixed(2),
        bytes,
        Math.round(median(all.map((f) => f.rowsPerS))),
      ]);
    }
  }
  process.stdout.write(
    formatTable(['batch', 'case', 'user µs/row', 'sys µs/row', 'cpu µs/row', 'bytes/row', 'rows/s'], rows) + '\n',
  );
}

main();
