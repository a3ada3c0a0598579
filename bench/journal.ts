/**
 * Journal append throughput with synchronous=FULL on a temp file: events/s and commits/s for
 * batches of 1, 10 and 100 (a receiver's group commit). Each size runs at most ~3 s.
 *
 *   node dist/bench/journal.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { Store } from '../src/store/store.js';
import { sampleJournalEvent } from './lib/journal-sample.js';

const SECONDS_PER_SIZE = 3;
const MAX_EVENTS_PER_SIZE = 2_000_000;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const store = new Store(join(dir, 'bench.db'), silentLogger);
  try {
    await store.start();
    process.stdout.write(`journal append, synchronous=FULL, WAL, file in ${dir}\n`);
    for (const size of [1, 10, 100]) {
      let events = 0;
      let commits = 0;
      const started = process.hrtime.bigint();
      const deadline = started + BigInt(SECONDS_PER_SIZE * 1e9);
      while (process.hrtime.bigint() < deadline && events < MAX_EVENTS_PER_SIZE) {
        await store.write.events.append(
          Array.from({ length: size }, (_, i) => sampleJournalEvent(events + i, Date.now())),
        );
        events += size;
        commits++;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      process.stdout.write(
        `batch ${String(size).padStart(3)}: ${Math.round(events / seconds)
          .toString()
          .padStart(8)} events/s, ` +
          `${Math.round(commits / seconds)
            .toString()
            .padStart(6)} commits/s (${events} events in ${seconds.toFixed(2)} s)\n`,
      );
    }
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
