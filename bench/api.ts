/**
 * Management API benchmark: cold start to /health = 200, idle RSS, and requests/s for an
 * authenticated GET /api/status and a valid PUT /api/settings. The gateway runs in a child
 * process (as in production) on loopback; every phase is bounded in time.
 *
 *   node dist/bench/api.js [--seconds 5] [--concurrency 16]
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, sleep } from '../test/helpers/net.js';
import { tempDir } from '../test/helpers/temp-dir.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '16' } },
});
const SECONDS = Math.min(60, Number(values.seconds));
const CONCURRENCY = Math.min(256, Number(values.concurrency));

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function call(port: number, method: string, path: string, token: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function load(label: string, run: (i: number) => Promise<number>): Promise<void> {
  const deadline = Date.now() + SECONDS * 1000;
  let ok = 0;
  let failed = 0;
  let i = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const status = await run(i++);
        if (status === 200) ok++;
        else failed++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `${label.padEnd(34)} ${(ok / seconds).toFixed(0).padStart(7)} req/s  (${ok} ok, ${failed} failed, ${CONCURRENCY} concurrent, ${seconds.toFixed(1)} s)`,
  );
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function main(): Promise<void> {
  const dir = tempDir('vigil-bench-');
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--data-dir', dir.path, '--http-port', String(port), '--https-port', '0', '--host', '127.0.0.1'],
    {
      stdio: 'ignore',
      env: { ...process.env, VIGIL_LOG_LEVEL: 'warn' },
    },
  );
  try {
    let coldMs = -1;
    for (let attempt = 0; attempt < 600 && coldMs < 0; attempt++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200)
          coldMs = Number(process.hrtime.bigint() - started) / 1e6;
      } catch {
        await sleep(10);
      }
    }
    console.log(`cold start (first start, incl. init) to /health = 200: ${coldMs.toFixed(0)} ms`);
    await sleep(1000);
    console.log(`idle RSS after start: ${rssMb(child.pid!).toFixed(1)} MB`);

    const token = spawnSync(process.execPath, [CLI, 'token', '--data-dir', dir.path, '--scopes', 'settings'], {
      encoding: 'utf8',
    }).stdout.trim();
    await load('GET /api/status (authenticated)', () => call(port, 'GET', '/api/status', token));
    await load('PUT /api/settings (valid, tracker)', (i) =>
      call(
        port,
        'PUT',
        '/api/settings',
        token,
        JSON.stringify({ tracker: { timeout_tolerance: i % 3600 }, general: { instance_name: `bench-${i % 100}` } }),
      ),
    );
    console.log(`RSS after load: ${rssMb(child.pid!).toFixed(1)} MB`);
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    agent.destroy();
    // Warm restart: the data dir is initialised now.
    const again = process.hrtime.bigint();
    const second = spawn(
      process.execPath,
      [CLI, 'serve', '--data-dir', dir.path, '--http-port', String(port), '--https-port', '0', '--host', '127.0.0.1'],
      { stdio: 'ignore' },
    );
    for (let attempt = 0; attempt < 600; attempt++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/health`)).status === 200) {
          console.log(
            `warm start (initialised dir) to /health = 200: ${(Number(process.hrtime.bigint() - again) / 1e6).toFixed(0)} ms`,
          );
          break;
        }
      } catch {
        await sleep(10);
      }
    }
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
    dir.remove();
  }
}

void main();
