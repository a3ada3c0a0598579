/**
 * The site of bench/site.ts, accelerated, to choose the sightings sweep interval (SEEN_PERSIST_MS,
 * docs/benchmarks.md §Sightings sweep model): the writer's own code on a real file (WAL,
 * synchronous=FULL) — 1,000 objects, one journal row per commit (1 event/s, each its own fsynced
 * commit), every device heard once per 60 s (its link test), the writer's SeenLog deciding what is
 * written when, on a simulated clock. Link tests that only wait for the sweep commit nothing (an
 * empty transaction writes no page), so one commit per simulated second carries the event and the
 * sightings, and the sweep when due. Prints write_bytes (/proc/self/io) per simulated day for each
 * interval. Runs SIMULATED seconds per interval, as fast as the fsyncs allow (~1 commit/ms).
 *
 *   node dist/bench/site-sweep-model.js
 * BENCH_MODEL_S=1200 (simulated seconds), BENCH_MODEL_INTERVALS=10,60,120,300 (seconds),
 * BENCH_MODEL_DEVICES=1000.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import { SeenLog, type Sight } from '../src/writer/seen-log.js';
import { openDatabase } from '../src/store/database.js';
import { createRepos } from '../src/store/repos.js';
import { Store } from '../src/store/store.js';
import { sampleJournalRows } from './lib/journal-sample.js';
import { writeBytes } from './lib/proc-io.js';

const SIMULATED_S = Math.min(7200, Number(process.env.BENCH_MODEL_S ?? 1200));
const DEVICES = Math.min(5000, Number(process.env.BENCH_MODEL_DEVICES ?? 1000));
const INTERVALS_S = (process.env.BENCH_MODEL_INTERVALS ?? '10,60,120,300').split(',').map(Number);
const LINK_TEST_S = 60;
/** Simulated time before measuring: every object registered and stored once (the start's burst). */
const WARM_S = LINK_TEST_S + 10;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

async function model(intervalS: number): Promise<{ bytesPerDay: number; commits: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-sweep-model-'));
  const path = join(dir, 'vigil.db');
  const store = new Store(path, silentLogger);
  try {
    await store.start();
    const rows = sampleJournalRows();
    let now = 0;
    const seen = new SeenLog(intervalS * 1000, () => now);
    const t0 = Date.UTC(2026, 10, 24);
    const ids: number[] = [];
    for (let i = 0; i < DEVICES; i++) {
      ids.push(
        (
          await store.write.objects.upsertMain({
            account: String(300000 + i),
            receiverId: 1,
            receiverKind: 'tcp',
            transport: 'tcp',
            remoteAddress: `10.0.${i >> 8}.${i & 255}:4000`,
            at: t0,
          })
        ).id,
      );
    }
    // From here the writer's own repositories on their own connection, as the writer thread
    // opens them (src/writer/writer-thread.ts): the store that registered the objects is stopped.
    await store.stop();
    const db = openDatabase(path);
    const repos = createRepos(db, systemClock);
    const tx = db.transaction((fn: () => void) => fn());
    let bytes0 = 0;
    let commits = 0;
    for (let s = 0; s < WARM_S + SIMULATED_S; s++) {
      if (s === WARM_S) {
        bytes0 = writeBytes('self');
        commits = 0;
      }
      now = s * 1000;
      // The devices whose link test falls in this second (each once per LINK_TEST_S, spread evenly).
      const heard = new Map<number, Sight>();
      for (let i = s % LINK_TEST_S; i < DEVICES; i += LINK_TEST_S) {
        heard.set(ids[i]!, { at: t0 + now, ping: true, remote: `10.0.${i >> 8}.${i & 255}:4000` });
      }
      tx.immediate(() => {
        repos.events.appendRows([rows[s % rows.length]!]);
        seen.apply(repos.objects, heard);
      });
      seen.committed();
      commits++;
    }
    const bytes = writeBytes('self') - bytes0;
    db.close();
    return { bytesPerDay: (bytes / SIMULATED_S) * 86_400, commits };
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  print(
    `sightings sweep model: ${DEVICES} objects, a link test each per ${LINK_TEST_S} s, 1 event/s (one commit each), ${SIMULATED_S} simulated s per interval`,
  );
  print('| sweep interval | written per simulated day | commits |');
  print('|---|---|---|');
  for (const intervalS of INTERVALS_S) {
    const { bytesPerDay, commits } = await model(intervalS);
    print(`| ${intervalS} s | ${(bytesPerDay / 1e6).toFixed(0)} MB | ${commits} |`);
  }
  print('no sweep at all (events only):');
  const { bytesPerDay } = await model(SIMULATED_S * 10);
  print(`| never | ${(bytesPerDay / 1e6).toFixed(0)} MB | |`);
}

main().catch((err: unknown) => {
  process.stderr.write(`sweep model failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
