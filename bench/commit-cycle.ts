/**
 * The commit cycle without sockets (issue 9, "Shorter commit cycle"): how much CPU one group
 * commit costs each thread, in Vigil's ingest (EventIngest + the journal writer thread, the real
 * store file, synchronous=FULL) and in the durable minimum's (bench/lib/store-minimal.ts: flat row
 * values to a bare writer thread), each alone and behind its receiver path (bench/lib/cycle-loops.ts).
 * No network and no simulator: `loops` closed loops each keep one frame of one event in flight and
 * send the next when it is committed, so every figure is the receiver's, the ingest's and the writer's own. The socket benchmark (bench/ingest.ts) cannot tell these
 * costs apart: its run-to-run spread (±10 %) is larger than any one of them.
 *
 * Each case runs in its own process, pinned to one core as the gateway is in bench/ingest.ts, the
 * two builds' runs alternating; CPU per thread from /proc/self/task/<tid>/stat over the window.
 *
 *   node dist/bench/commit-cycle.js    # BENCH_CYCLE_DEVICES=1,10,100 BENCH_CYCLE_BUILDS=vigil,minimum,vigil-rx,minimum-rx
 *                                      # BENCH_REPEAT=3 BENCH_MEASURE_S=3
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILDS, makeLoop, type Build } from './lib/cycle-loops.js';
import { hasTaskset } from './lib/gateway-child.js';
import { cpuTicks } from './lib/proc-io.js';
import { formatTable, median } from './lib/table.js';
import { tool } from '../test/helpers/system-tools.js';

interface CycleResult {
  readonly build: Build;
  readonly devices: number;
  readonly eventsPerS: number;
  readonly eventsPerCommit: number;
  /** µs per commit: the main thread (user, sys), the writer thread, all threads. */
  readonly mainUser: number;
  readonly mainSys: number;
  readonly writerUser: number;
  readonly writerSys: number;
  readonly total: number;
}

type TaskTimes = Map<string, [user: number, sys: number]>;

function taskTimes(): TaskTimes {
  const times: TaskTimes = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    times.set(tid, cpuTicks(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')));
  }
  return times;
}

async function child(build: Build, devices: number, measureS: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cycle-'));
  const loop = await makeLoop(build, join(dir, `${build}.db`));
  let events = 0;
  let running = true;
  const next = (device: number): void => {
    loop.submit(device, () => {
      events++;
      if (running) next(device);
    });
  };
  for (let d = 0; d < devices; d++) next(d);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const before = taskTimes();
  const events0 = events;
  const commits0 = loop.commits();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, measureS * 1000));
  const after = taskTimes();
  const seconds = (performance.now() - t0) / 1000;
  const n = events - events0;
  const commits = loop.commits() - commits0;
  running = false;
  // Ticks are 10 ms (USER_HZ 100): µs per commit.
  const perCommit = (ticks: number): number => (ticks * 10_000) / commits;
  let mainUser = 0,
    mainSys = 0,
    writerUser = 0,
    writerSys = 0,
    total = 0;
  for (const [tid, [user, sys]] of after) {
    const [u0, s0] = before.get(tid) ?? [user, sys];
    const u = user - u0;
    const s = sys - s0;
    total += u + s;
    if (tid === String(process.pid)) [mainUser, mainSys] = [u, s];
    else if (u + s > writerUser + writerSys) [writerUser, writerSys] = [u, s];
  }
  // Let the frames of the last turn reach their commit before the loop closes under them.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await loop.close();
  rmSync(dir, { recursive: true, force: true });
  const result: CycleResult = {
    build,
    devices,
    eventsPerS: Math.round(n / seconds),
    eventsPerCommit: n / commits,
    mainUser: perCommit(mainUser),
    mainSys: perCommit(mainSys),
    writerUser: perCommit(writerUser),
    writerSys: perCommit(writerSys),
    total: perCommit(total),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(build: Build, devices: number, measureS: number): CycleResult {
  const script = fileURLToPath(import.meta.url);
  const args = [script, 'child', build, String(devices), String(measureS)];
  const out = hasTaskset()
    ? execFileSync(tool('taskset'), ['-c', '1', process.execPath, ...args], { encoding: 'utf8' })
    : execFileSync(process.execPath, args, { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!) as CycleResult;
}

function driver(): void {
  const fleets = (process.env.BENCH_CYCLE_DEVICES ?? '1,10,100').split(',').map(Number);
  const builds = (process.env.BENCH_CYCLE_BUILDS?.split(',') ?? BUILDS).filter((b): b is Build =>
    (BUILDS as readonly string[]).includes(b),
  );
  const repeat = Math.max(1, Math.min(9, Number(process.env.BENCH_REPEAT ?? 3)));
  const measureS = Number(process.env.BENCH_MEASURE_S ?? 3);
  console.log(
    `commit cycle, no sockets: ${fleets.join(', ')} closed loops, ${repeat} runs of ${measureS} s each, the builds' runs alternating, pinned to CPU 1${hasTaskset() ? '' : ' (taskset not found: not pinned)'}`,
  );
  const rows: string[][] = [];
  for (const devices of fleets) {
    const runs = new Map<Build, CycleResult[]>(builds.map((b) => [b, []]));
    for (let r = 0; r < repeat; r++)
      for (const build of builds) runs.get(build)!.push(runChild(build, devices, measureS));
    for (const build of builds) {
      const list = runs.get(build)!;
      const m = (pick: (r: CycleResult) => number): string => median(list.map(pick)).toFixed(1);
      const perEvent = median(list.map((r) => r.total / r.eventsPerCommit));
      rows.push([
        build,
        String(devices),
        String(median(list.map((r) => r.eventsPerS))),
        m((r) => r.eventsPerCommit),
        m((r) => r.mainUser),
        m((r) => r.mainSys),
        m((r) => r.writerUser),
        m((r) => r.writerSys),
        m((r) => r.total),
        perEvent.toFixed(1),
      ]);
    }
  }
  console.log(
    formatTable(
      [
        'build',
        'loops',
        'events/s',
        'ev/commit',
        'main user',
        'main sys',
        'writer user',
        'writer sys',
        'cpu µs/commit',
        'cpu µs/ev',
      ],
      rows,
    ),
  );
  console.log(
    '(µs per commit, medians; "cpu" = every thread of the process; one frame of one event per loop in flight)',
  );
}

if (process.argv[2] === 'child') {
  const build = BUILDS.find((b) => b === process.argv[3]);
  if (!build) throw new Error(`usage: commit-cycle.js child ${BUILDS.join('|')} <devices> <seconds>`);
  await child(build, Number(process.argv[4]), Number(process.argv[5]));
  process.exit(0);
} else {
  driver();
}
