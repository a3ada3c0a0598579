/**
 * Memory of idle connections (issue 3 target: 10,000 connections < 250 MB RSS). The gateway runs
 * in a child process (CPU 1); simulated devices connect over loopback in steps of 0 -> 1k -> 5k
 * -> 10k, each sending VL-HELLO and then only NULL link tests every ~30 s. The gateway's VmRSS is
 * read from /proc/<pid>/status at each step, after a settling pause.
 *
 * File descriptors: each side needs one per connection; check `ulimit -n` (both processes
 * inherit it) is above 10,000 plus some. 10,000 client ports fit the default ephemeral range
 * (32768-60999); beyond that, set BENCH_SOURCES=127.0.0.2,127.0.0.3 to spread source addresses.
 *
 *   node dist/bench/connections.js        (BENCH_STEPS=1000,5000,10000 BENCH_SETTLE_S=3)
 */
import { execFileSync } from 'node:child_process';
import { resolveSimOptions } from '../src/sim/sim-options.js';
import { Simulator } from '../src/sim/simulator.js';
import { freePort, pinSelf, sleep, startGatewayChild } from './lib/gateway-child.js';
import { formatTable, verdict } from './lib/table.js';
import { tool } from '../test/helpers/system-tools.js';

const STEPS = (process.env.BENCH_STEPS ?? '1000,5000,10000').split(',').map(Number);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_S ?? 3) * 1000;
const SOURCES = process.env.BENCH_SOURCES ? process.env.BENCH_SOURCES.split(',') : [];
const LINK_TEST_MS = 30_000;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

function fdLimit(): string {
  try {
    return execFileSync(tool('sh'), ['-c', 'ulimit -n'], { timeout: 2000 }).toString().trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const limit = fdLimit();
  print(`connections bench: ${pinSelf(0)}; ulimit -n = ${limit}`);
  const needed = Math.max(...STEPS) + 100;
  if (limit !== 'unlimited' && Number(limit) < needed) {
    print(`  ulimit -n ${limit} < ${needed}: raise it (ulimit -n ${needed * 2}) or lower BENCH_STEPS`);
    process.exitCode = 1;
    return;
  }
  const port = await freePort();
  const gateway = await startGatewayChild({ receivers: { tcp: [{ id: 1, port }], udp: [] } });
  const sims: Simulator[] = [];
  const rows: (string | number)[][] = [];
  const sample = (count: number, connected: number, seconds: number): void => {
    const rss = gateway.rssKiB() / 1024;
    const own = process.memoryUsage().rss / 1024 / 1024;
    const perConn = count > 0 ? ((rss - Number(rows[0]?.[2] ?? rss)) * 1024) / count : 0;
    rows.push([
      count,
      connected,
      rss.toFixed(1),
      count > 0 ? perConn.toFixed(1) : '-',
      own.toFixed(1),
      seconds.toFixed(1),
    ]);
    print(`  ${count} devices: ${connected} connected, gateway RSS ${rss.toFixed(1)} MiB`);
  };
  let finalRss = 0;
  try {
    await sleep(SETTLE_MS);
    sample(0, 0, 0);
    let total = 0;
    for (const target of STEPS) {
      const add = target - total;
      if (add <= 0) continue;
      const started = performance.now();
      const sim = new Simulator(
        resolveSimOptions({
          port,
          devices: add,
          ratePerDevice: 0,
          linkTestIntervalMs: LINK_TEST_MS,
          connectRate: 2000,
          // Distinct accounts and UIDs per step: these are new devices, not reconnections.
          accountBase: (0x100000 + total).toString(16).toUpperCase(),
          uidBase: (0xb00000000000 + total).toString(16).toUpperCase(),
          durationMs: 3_600_000,
          ackTimeoutMs: 10_000,
          localAddresses: SOURCES,
        }),
      );
      sims.push(sim);
      sim.start();
      const ok = await sim.waitConnected(add, 120_000);
      const seconds = (performance.now() - started) / 1000;
      total = target;
      await sleep(SETTLE_MS);
      const connected = sims.reduce((n, s) => n + s.stats.connected, 0);
      if (!ok)
        print(`  only ${sim.stats.connected} of ${add} connected in 120 s (connect errors ${sim.stats.connectErrors})`);
      sample(target, connected, seconds);
      finalRss = gateway.rssKiB() / 1024;
    }
    const welcomes = sims.reduce((n, s) => n + s.stats.welcomes, 0);
    const nulls = sims.reduce((n, s) => n + s.stats.linkTestsAcked, 0);
    print(`  device link: ${welcomes} VL-WELCOME; NULL link tests ACKed so far: ${nulls}`);
  } finally {
    for (const sim of sims) await sim.stop();
    await gateway.stop();
  }
  print('\n' + formatTable(['devices', 'connected', 'gateway RSS MiB', 'KiB/conn', 'sim RSS MiB', 'connect s'], rows));
  const max = Math.max(...STEPS);
  print(
    `\ntarget: ${max} connections < 250 MB RSS: ${(finalRss * 1.048576).toFixed(1)} MB ${verdict(finalRss * 1.048576 < 250)}`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `connections bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exitCode = 1;
});
