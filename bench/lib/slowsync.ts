/**
 * SD-card-like flush latency for the benches (docs/benchmarks.md §Slow storage): the `LD_PRELOAD`
 * shim bench/lib/slowsync.c makes every fsync/fdatasync of a process, its threads and its children
 * return only after the real call and SLOWSYNC_US microseconds more. The bench builds it with the C
 * compiler on first use (it is never committed as a binary), into the temp dir under a name that
 * holds the source's hash, so an edited source is built again and concurrent benches share one file.
 * flushEnv() is what a bench adds to the environment of EVERY process of a comparison (the gateway,
 * the reference receivers, the durable floor), so their ratio means something.
 *
 * SLOWSYNC_STATS (flushEnv's `statsFile`) makes the shim count flushes and bytes by file (flush-split.ts).
 *
 * Built by hand: cc -shared -fPIC -O2 -o /tmp/slowsync.so bench/lib/slowsync.c -ldl
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tool } from '../../test/helpers/system-tools.js';

/** The source, beside the bench sources (the compiled module runs from dist/bench/lib/). */
export const SLOWSYNC_SOURCE = fileURLToPath(new URL('../../../bench/lib/slowsync.c', import.meta.url));
/** Flush latencies a bench accepts (µs): 0 (the machine's own disk) up to 1 s. */
const MAX_FSYNC_US = 1_000_000;

/** BENCH_FSYNC_US: one latency or a comma-separated list (µs); unset is the machine's own disk (0). */
export function parseFsyncList(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return [0];
  return text.split(',').map((part) => {
    const us = Number(part.trim());
    if (!Number.isInteger(us) || us < 0 || us > MAX_FSYNC_US)
      throw new Error(`BENCH_FSYNC_US: "${part}" is not a whole number of µs 0..${MAX_FSYNC_US}`);
    return us;
  });
}

let built: string | null = null;

/** The shim's shared object: built once per source version (cc), then reused. */
export function slowsyncLibrary(): string {
  if (built) return built;
  const source = readFileSync(SLOWSYNC_SOURCE);
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const target = join(tmpdir(), `vigil-slowsync-${hash}.so`);
  if (!existsSync(target)) {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-slowsync-'));
    try {
      const out = join(dir, 'slowsync.so');
      execFileSync(tool('cc'), ['-shared', '-fPIC', '-O2', '-o', out, SLOWSYNC_SOURCE, '-ldl'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 60_000,
      });
      // A rename is atomic: a bench starting meanwhile sees no file or the whole one.
      renameSync(out, target);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  built = target;
  return target;
}

/**
 * The environment additions that give a process `us` µs more per flush; none for 0. With `statsFile`
 * (flush-split.ts flushStatsFile) the shim also counts each flush and the bytes before it by file,
 * at 0 µs too.
 */
export function flushEnv(us: number, statsFile?: string): Record<string, string> {
  if (us === 0 && statsFile === undefined) return {};
  const preload = [slowsyncLibrary(), process.env.LD_PRELOAD].filter(Boolean).join(' ');
  return {
    LD_PRELOAD: preload,
    SLOWSYNC_US: String(us),
    ...(statsFile !== undefined && { SLOWSYNC_STATS: statsFile }),
  };
}

/** "3 ms flush" / "own disk": how a bench names a latency. */
export function flushLabel(us: number): string {
  return us === 0 ? 'own disk' : `+${us / 1000} ms flush`;
}

const CHECK_FLUSHES = 10;

/**
 * Proves the shim takes in a child process with `us`: CHECK_FLUSHES fsyncs of a temp file must take at
 * least that many times `us`. Returns the measured ms per flush; throws when the shim did not take.
 */
export function checkFlushLatency(us: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-slowsync-check-'));
  try {
    const script = `const fs=require('node:fs');const fd=fs.openSync(process.argv[1],'w');const t=performance.now();for(let i=0;i<${CHECK_FLUSHES};i++){fs.writeSync(fd,'x');fs.fsyncSync(fd);}process.stdout.write(String((performance.now()-t)/${CHECK_FLUSHES}));`;
    const out = execFileSync(process.execPath, ['-e', script, join(dir, 'probe')], {
      env: { ...process.env, ...flushEnv(us) },
      timeout: 30_000 + (CHECK_FLUSHES * us) / 1000,
    });
    const ms = Number(out.toString());
    if (!(ms >= us / 1000)) throw new Error(`slowsync did not take: ${ms.toFixed(2)} ms per flush at ${us} µs`);
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
