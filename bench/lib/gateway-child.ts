/**
 * The gateway under test in its own process (`node dist/src/cli.js serve`), so the simulator
 * never shares its event loop. On a 2-core box the gateway is pinned to CPU 1 and the bench to
 * CPU 0 (taskset, when present). Loopback only; every wait is bounded.
 *
 * BENCH_CPU_PROF=<dir> starts the gateway with `node --cpu-prof --cpu-prof-dir <dir>`: the
 * profile is written when the gateway stops (SIGTERM, clean exit).
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTicks, writeBytes } from './proc-io.js';
import { seedGateway, seedReceivers, type GatewaySeed, type SeedSpec } from './seed-settings.js';
import { tool } from '../../test/helpers/system-tools.js';

/** BENCH_GATEWAY_CLI=<path to dist/src/cli.js of another build>: measure that build with this bench (before/after runs). */
const CLI = process.env.BENCH_GATEWAY_CLI ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli.js');
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The bench's child processes still running: a bench stopped by a signal ends them too (never orphaned). */
const children = new Set<ChildProcess>();
let signalsHandled = false;

/** Counts `child` among the bench's children until it exits; the first call installs the signal handlers. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (signalsHandled) return;
  signalsHandled = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => {
      for (const c of children) c.kill('SIGTERM');
      process.exit(130);
    });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function hasTaskset(): boolean {
  try {
    execFileSync(tool('taskset'), ['-V'], { stdio: 'ignore', timeout: 2000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * BENCH_PIN: `split` (default) bench on CPU 0, every gateway thread on CPU 1; `sim` bench on CPU 0,
 * the gateway's threads anywhere (its journal writer may use what the bench leaves of CPU 0);
 * `none` nothing pinned.
 */
export const PIN_MODE: 'split' | 'sim' | 'none' =
  process.env.BENCH_PIN === 'sim'
    ? 'sim'
    : process.env.BENCH_PIN === 'none' || process.env.BENCH_PIN === '0'
      ? 'none'
      : 'split';
/** True when the gateway is confined to CPU 1. */
export const PINNING = PIN_MODE === 'split';

/** Pins this process to one CPU (best effort); returns a note for the report. */
export function pinSelf(cpu: number): string {
  if (PIN_MODE === 'none') return 'not pinned (BENCH_PIN=none)';
  if (!hasTaskset()) return 'taskset not found: not pinned';
  try {
    execFileSync(tool('taskset'), ['-cp', String(cpu), String(process.pid)], { stdio: 'ignore', timeout: 2000 });
    return `bench pinned to CPU ${cpu}${PIN_MODE === 'sim' ? ', gateway threads on any CPU (BENCH_PIN=sim)' : ''}`;
  } catch (err) {
    return `pinning failed: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function tcpReady(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(100);
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`);
}

export interface GatewayChild {
  readonly pid: number;
  readonly httpPort: number;
  readonly dataDir: string;
  /** JWT with settings, restart_services, device_control, omit_mpass and metrics. */
  readonly token: string;
  /** Resident set size of the gateway process in KiB (/proc/<pid>/status VmRSS). */
  rssKiB(): number;
  /** User + system CPU seconds the gateway used so far (/proc/<pid>/stat). */
  cpuSeconds(): number;
  /** Bytes the gateway (all threads) caused to be written to storage so far (/proc/<pid>/io write_bytes). */
  writeBytes(): number;
  api(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

export interface GatewayChildOptions {
  readonly receivers: SeedSpec;
  /** More to write before the first start (seed-settings.ts seedGateway: limits, outputs, known objects). */
  readonly seed?: Omit<GatewaySeed, keyof SeedSpec>;
  /**
   * Another build to run (a tree built with `npm run build`): its dist/src/cli.js, seeded with its
   * own dist/bench/lib/seed-settings.js (its settings schema may differ from this build's).
   */
  readonly buildDir?: string;
  /** CPU to pin the gateway to (default 1 when the machine has 2+ CPUs). */
  readonly cpu?: number | null;
  readonly logLevel?: string;
  /** Extra node options for the gateway (e.g. `--trace-gc`), before the script. */
  readonly nodeArgs?: readonly string[];
  /** Each line the gateway writes to stdout or stderr, as it comes (the tail is kept either way). */
  readonly onOutputLine?: (line: string) => void;
  /** Added to the gateway's environment (slowsync.ts flushEnv: the flush latency of its storage). */
  readonly env?: Readonly<Record<string, string>>;
}

function readProc(pid: number, file: string): string {
  return readFileSync(`/proc/${pid}/${file}`, 'utf8');
}

/** A child process's figures from /proc, as GatewayChild reports them (the store-nothing reference's too). */
export function procFigures(pid: number): Pick<GatewayChild, 'rssKiB' | 'cpuSeconds' | 'writeBytes'> {
  return {
    rssKiB: () => Number(/VmRSS:\s+(\d+)/.exec(readProc(pid, 'status'))?.[1] ?? NaN),
    cpuSeconds: () => {
      const [user, sys] = cpuTicks(readProc(pid, 'stat'));
      return (user + sys) / 100;
    },
    writeBytes: () => writeBytes(pid),
  };
}

export async function startGatewayChild(options: GatewayChildOptions): Promise<GatewayChild> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-gw-'));
  const cli = options.buildDir ? join(options.buildDir, 'dist', 'src', 'cli.js') : CLI;
  const seed = options.buildDir
    ? (
        (await import(join(options.buildDir, 'dist', 'bench', 'lib', 'seed-settings.js'))) as {
          seedReceivers: typeof seedReceivers;
        }
      ).seedReceivers
    : seedReceivers;
  if (options.seed) await seedGateway(dataDir, { ...options.receivers, ...options.seed });
  else await seed(dataDir, options.receivers);
  const httpPort = await freePort();
  const nodeArgs: string[] = [
    ...(options.nodeArgs ?? []),
    ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
  ];
  const profDir = process.env.BENCH_CPU_PROF;
  if (profDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profDir);
  const serveArgs = [
    ...nodeArgs,
    cli,
    'serve',
    '--data-dir',
    dataDir,
    '--http-port',
    String(httpPort),
    '--https-port',
    '0',
    '--host',
    '127.0.0.1',
  ];
  const cpu = options.cpu === undefined ? (PINNING ? 1 : null) : options.cpu;
  const pinned = cpu !== null && hasTaskset();
  const onLine = options.onOutputLine;
  const stdout = onLine ? 'pipe' : 'ignore';
  const spawnOptions = {
    stdio: ['ignore', stdout, 'pipe'] as ['ignore', 'pipe' | 'ignore', 'pipe'],
    env: { ...process.env, ...options.env, VIGIL_LOG_LEVEL: options.logLevel ?? 'warn' },
  };
  const child: ChildProcess = pinned
    ? spawn(tool('taskset'), ['-c', String(cpu), process.execPath, ...serveArgs], spawnOptions)
    : spawn(process.execPath, serveArgs, spawnOptions);
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => {
    // Keep the tail only: a chatty gateway must not grow the bench's memory.
    stderr = (stderr + c.toString()).slice(-20_000);
  });
  if (onLine) {
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.on('data', (c: Buffer) => {
        const lines = (partial + c.toString()).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) onLine(line);
      });
    }
  }
  const pid = child.pid!;
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const ok = await Promise.race([exited.then(() => true), sleep(STOP_TIMEOUT_MS).then(() => false)]);
      if (!ok) {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await until('gateway HTTP', async () => {
      if (child.exitCode !== null) throw new Error(`gateway exited: ${stderr.trim()}`);
      try {
        return (await fetch(`http://127.0.0.1:${httpPort}/health`)).status > 0;
      } catch {
        return false;
      }
    });
    for (const r of options.receivers.tcp) await until(`TCP receiver ${r.port}`, () => tcpReady(r.port));
    const token = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          cli,
          'token',
          '--data-dir',
          dataDir,
          '--scopes',
          'settings,restart_services,device_control,omit_mpass,metrics',
          '--minutes',
          '600',
        ],
        { timeout: 20_000 },
        (err, stdout) => (err ? reject(err) : resolve(stdout.trim())),
      );
    });
    return {
      pid,
      httpPort,
      dataDir,
      token,
      ...procFigures(pid),
      api: async (method, path, body) => {
        const response = await fetch(`http://127.0.0.1:${httpPort}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, text: await response.text() };
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
