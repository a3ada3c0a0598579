/**
 * Bytes written per stored storm event by events per commit (docs/writer.md §Bytes per event on slow
 * storage): the storm's writes (bench/storm.ts: known panels, an AC loss on a new connection, then a
 * restore on it) through the build's own receiver path and writer thread on a real file, a fixed number
 * of panels per commit (bench/lib/storm-writes.ts). In the storm bench the events per commit follow the
 * arrival rate and the commit's time, which the flush and the machine's load set; here they are fixed,
 * so what a build writes per event at a given commit size is compared with nothing else moving.
 * BENCH_COMPARE=<another tree> runs the same through that tree's `dist/` (its writer thread too), build
 * after build per commit size.
 *
 *   node dist/bench/storm-writes.js   # BENCH_WRITES_PANELS=2000 BENCH_WRITES_PER_COMMIT=1,2,4,6,8,12,16,32
 *                                     # BENCH_COMPARE=<tree>
 * Bounded: at most 10,000 panels, commit sizes 1..1,000; ≈ 2 × panels / size commits per build and size.
 */
import { join } from 'node:path';
import { OWN_DIST, loadStormBuild, stormWrites, type StormBuild, type WaveWrites } from './lib/storm-writes.js';
import { formatTable, loadAverages } from './lib/table.js';

const PANELS = Math.min(10_000, Math.max(1, Number(process.env.BENCH_WRITES_PANELS ?? 2000)));
const SIZES = (process.env.BENCH_WRITES_PER_COMMIT ?? '1,2,4,6,8,12,16,32').split(',').map((part) => {
  const n = Number(part.trim());
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new Error(`BENCH_WRITES_PER_COMMIT: "${part}" is not a commit size 1..1000`);
  return n;
});
const COMPARE = process.env.BENCH_COMPARE;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const load = loadAverages;

const perEvent = (w: WaveWrites): number => Math.round(w.bytes / w.events);

async function main(): Promise<void> {
  const builds: Array<[string, StormBuild]> = [['this build', await loadStormBuild(OWN_DIST)]];
  if (COMPARE) builds.push(['compared', await loadStormBuild(join(COMPARE, 'dist'))]);
  print(
    `storm writes: ${PANELS} known panels, AC loss on a new connection then restore on it, N panels per commit; write_bytes per stored event (this process: the writer thread)`,
  );
  for (const [name, build] of builds) print(`  ${name}: ${build.root}`);
  print(`load average before: ${load()}`);
  const rows: Array<Array<string | number>> = [];
  for (const size of SIZES) {
    for (const [name, build] of builds) {
      const [loss, restore] = await stormWrites(build, PANELS, size);
      const bytes = loss!.bytes + restore!.bytes;
      const events = loss!.events + restore!.events;
      const commits = loss!.commits + restore!.commits;
      rows.push([
        size,
        name,
        commits,
        perEvent(loss!),
        perEvent(restore!),
        Math.round(bytes / events),
        Math.round(bytes / commits),
      ]);
    }
  }
  print(
    '\n' + formatTable(['ev/commit', 'build', 'commits', 'loss B/ev', 'restore B/ev', 'storm B/ev', 'B/commit'], rows),
  );
  print(
    '  (loss: a session row opened and the first sighting written with each event; restore: the event alone, its sighting left for the sweep; storm: both waves)',
  );
  print(`load average after: ${load()}`);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `storm-writes bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
