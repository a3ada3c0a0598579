/**
 * A reference receiver of the ingest bench (store-nothing.ts, store-minimal.ts) in its own process,
 * pinned to `cpu` when given, shaped like a gateway child so runPhase drives it like the gateway.
 * BENCH_CPU_PROF=<dir> writes a .cpuprofile per thread, as for the gateway (gateway-child.ts).
 * The child prints one line when it listens; `cleanup` runs after it has stopped (or failed to start);
 * `env` is added to its environment (slowsync.ts flushEnv).
 */
import { spawn } from 'node:child_process';
import { procFigures, sleep, trackChild, type GatewayChild } from './gateway-child.js';
import { tool } from '../../test/helpers/system-tools.js';

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5000;

export async function startReferenceChild(
  name: string,
  script: string,
  args: readonly string[],
  cpu: number | null,
  cleanup: () => void = () => undefined,
  env: Readonly<Record<string, string>> = {},
): Promise<GatewayChild> {
  const profDir = process.env.BENCH_CPU_PROF;
  const nodeArgs = [...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : []), script, ...args];
  const options = {
    stdio: ['ignore', 'pipe', 'inherit'] as ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  };
  const child =
    cpu === null
      ? spawn(process.execPath, nodeArgs, options)
      : spawn(tool('taskset'), ['-c', String(cpu), process.execPath, ...nodeArgs], options);
  const pid = child.pid!;
  trackChild(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<boolean>((resolve) => child.stdout!.once('data', () => resolve(true)));
  if (!(await Promise.race([ready, sleep(READY_TIMEOUT_MS).then(() => false)]))) {
    child.kill('SIGKILL');
    cleanup();
    throw new Error(`${name} receiver did not start`);
  }
  return {
    pid,
    httpPort: 0,
    dataDir: '',
    token: '',
    ...procFigures(pid),
    api: () => Promise.reject(new Error(`the ${name} receiver has no API`)),
    stop: async () => {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(STOP_TIMEOUT_MS).then(() => child.kill('SIGKILL'))]);
      cleanup();
    },
  };
}
