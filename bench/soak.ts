/**
 * Memory soak: does the gateway's memory settle, or grow with every message it handles? A site
 * like bench/site.ts, accelerated so that 20 minutes hold what a real site sends in hours: 1,000
 * TCP devices, a NULL link test every 6 s each (~167/s, 10x the site's) and 20 events/s (20x),
 * plus 5 connections a second from 200 devices that connect for each event (bench/lib/churn.ts).
 * Every minute it prints the gateway's RSS split by kind (bench/lib/memory-figures.ts) and each
 * V8 isolate's live heap after its latest full collection (`node --trace-gc`); at the end it
 * compares each isolate's live heap in the first and the last third of the window. A leak shows
 * as a live heap that keeps rising; V8's reserved heap and RSS rise at first with the allocation
 * rate and then stay. Gateway on CPU 1, simulator on CPU 0, loopback only, bounded by the run time.
 *
 *   node dist/bench/soak.js
 * BENCH_SOAK_S=1200 (measured seconds), BENCH_SOAK_DEVICES=1000, BENCH_SOAK_SAMPLE_S=60,
 * BENCH_SOAK_LINK_S=6 (link-test period), BENCH_SOAK_RATE=20 (events/s over the site),
 * BENCH_SOAK_CHURN=5 (connections a second from devices that connect for each event; 0: none),
 * BENCH_GATEWAY_CLI=<other build>.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolveSimOptions } from '../src/sim/sim-options.js';
import { Simulator } from '../src/sim/simulator.js';
import { PINNING, freePort, pinSelf, sleep, startGatewayChild } from './lib/gateway-child.js';
import { gcIsolate, memoryClasses, parseFullGc, type FullGc } from './lib/memory-figures.js';
import { ChurnDevices } from './lib/churn.js';
import { formatTable, verdict } from './lib/table.js';

const SECONDS = Math.min(7200, Number(process.env.BENCH_SOAK_S ?? 1200));
const DEVICES = Math.min(5000, Number(process.env.BENCH_SOAK_DEVICES ?? 1000));
const SAMPLE_MS = Math.max(5, Number(process.env.BENCH_SOAK_SAMPLE_S ?? 60)) * 1000;
const LINK_TEST_MS = Math.max(1, Number(process.env.BENCH_SOAK_LINK_S ?? 6)) * 1000;
const EVENTS_PER_S = Math.min(2000, Number(process.env.BENCH_SOAK_RATE ?? 20));
/** Devices that connect for each event (bench/lib/churn.ts), new connections per second, 200 accounts. */
const CHURN_PER_S = Math.min(200, Number(process.env.BENCH_SOAK_CHURN ?? 5));
const CHURN_ACCOUNTS = 200;
/** Settling: registrations, first pings, and the link-test periods the tracker learns at the third test. */
const SETTLE_MS = 5 * LINK_TEST_MS + 30_000;
/** A live heap that rose by less than this (or 5 %) between the first and last third is steady. */
const STEADY_MIB = 1;

const HEADER = ['s', 'RSS MiB', 'V8 pages', 'native', 'brk', 'files', 'live/reserved MiB per thread', 'events ACKed'];

const mib = (kib: number): string => (kib / 1024).toFixed(1);

function print(text: string): void {
  process.stdout.write(text + '\n');
}

/** Each isolate's full collections inside the measured window, in order. */
class GcLog {
  private readonly byIsolate = new Map<string, FullGc[]>();
  /** Isolates in the order they first collected. */
  private readonly order: string[] = [];
  private windowStartMs = Infinity;

  /** Any trace-gc line: notes the isolate's place in the start order. */
  saw(isolate: string): void {
    if (!this.order.includes(isolate)) this.order.push(isolate);
  }

  /**
   * The main thread collects first (it loads every module before any worker starts); the workers
   * (journal writer, output worker) follow in the order they first collect, which is not always
   * the order they started: they are numbered, not named.
   */
  label(isolate: string): string {
    const n = this.order.indexOf(isolate) + 1;
    return n === 1 ? 'main thread' : `worker isolate #${n - 1}`;
  }

  /** Collections before this wall-clock moment (the settling) are not kept. */
  openWindow(): void {
    this.windowStartMs = Date.now();
  }

  add(gc: FullGc): void {
    if (Date.now() < this.windowStartMs) return;
    let list = this.byIsolate.get(gc.isolate);
    if (!list) this.byIsolate.set(gc.isolate, (list = []));
    list.push(gc);
  }

  /** Isolates with full collections in the window, in start order. */
  isolates(): [string, FullGc[]][] {
    return [...this.byIsolate.entries()].sort((a, b) => this.order.indexOf(a[0]) - this.order.indexOf(b[0]));
  }
}

async function main(): Promise<void> {
  print(
    `soak bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; ${DEVICES} devices, link test every ${LINK_TEST_MS / 1000} s, ${EVENTS_PER_S} events/s; ${CHURN_PER_S} connections/s from ${CHURN_ACCOUNTS} devices connecting per event; ${SECONDS} s measured`,
  );
  print(
    `gateway: ${process.env.BENCH_GATEWAY_CLI ?? 'this build'}; load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const gcs = new GcLog();
  const port = await freePort();
  const gateway = await startGatewayChild({
    receivers: { tcp: [{ id: 1, port }], udp: [] },
    nodeArgs: ['--trace-gc'],
    onOutputLine: (line) => {
      const isolate = gcIsolate(line);
      if (isolate) gcs.saw(isolate);
      const gc = parseFullGc(line);
      if (gc) gcs.add(gc);
    },
  });
  const sim = new Simulator(
    resolveSimOptions({
      port,
      transport: 'tcp',
      devices: DEVICES,
      totalRate: EVENTS_PER_S,
      linkTestIntervalMs: LINK_TEST_MS,
      connectRate: 500,
      accountBase: '400000',
      durationMs: SECONDS * 1000 + SETTLE_MS + 120_000,
      drainMs: 0,
      ackTimeoutMs: 10_000,
    }),
  );
  const churn = new ChurnDevices({ port, perSecond: CHURN_PER_S, accounts: CHURN_ACCOUNTS });
  const smaps = (): ReturnType<typeof memoryClasses> =>
    memoryClasses(readFileSync(`/proc/${gateway.pid}/smaps`, 'utf8'));
  try {
    sim.start();
    await sim.waitConnected(DEVICES, 60_000);
    churn.start();
    await sleep(SETTLE_MS);
    gcs.openWindow();
    const t0 = performance.now();
    const acked0 = sim.stats.eventsAcked;
    const rssStart = gateway.rssKiB();
    const samples: (string | number)[][] = [];
    const sample = (): void => {
      const m = smaps();
      const heaps = gcs
        .isolates()
        .map(([, list]) => list[list.length - 1]!)
        .map((g) => `${g.liveMiB.toFixed(1)}/${g.reservedMiB.toFixed(0)}`);
      samples.push([
        ((performance.now() - t0) / 1000).toFixed(0),
        mib(gateway.rssKiB()),
        mib(m.v8KiB),
        mib(m.nativeKiB),
        mib(m.brkKiB),
        mib(m.fileKiB),
        heaps.join('  ') || '-',
        sim.stats.eventsAcked - acked0,
      ]);
      const table = formatTable(HEADER, samples);
      print(samples.length === 1 ? table : table.split('\n').pop()!);
    };
    sample();
    const deadline = t0 + SECONDS * 1000;
    while (performance.now() < deadline) {
      await sleep(Math.min(SAMPLE_MS, deadline - performance.now()));
      sample();
    }
    const s = sim.stats;
    print('');
    print(formatTable(HEADER, samples));
    print('');
    print(
      `events ACKed ${s.eventsAcked - acked0} in ${SECONDS} s; connected ${s.connected}; ACK timeouts ${s.ackTimeouts}`,
    );
    print(
      `connect-per-event devices, whole run: ${churn.stats.opened} connections, ${churn.stats.acked} ACKed, ${churn.stats.failed} failed or timed out`,
    );
    print(`RSS ${mib(rssStart)} → ${mib(gateway.rssKiB())} MiB`);
    const third = (SECONDS * 1000) / 3;
    for (const [isolate, list] of gcs.isolates()) {
      const startMs = list[0]!.atMs;
      const first = list.filter((g) => g.atMs - startMs < third);
      const last = list.filter((g) => g.atMs - startMs >= 2 * third);
      if (first.length === 0 || last.length === 0) {
        print(`${gcs.label(isolate)}: ${list.length} full collections, too few to compare thirds`);
        continue;
      }
      // The smallest live heap of each third: a collection in the middle of a burst holds garbage-in-flight.
      const before = Math.min(...first.map((g) => g.liveMiB));
      const after = Math.min(...last.map((g) => g.liveMiB));
      const grew = after - before;
      const steady = grew < Math.max(STEADY_MIB, before * 0.05);
      print(
        `${gcs.label(isolate)}: ${list.length} full collections; live heap ${before.toFixed(1)} → ${after.toFixed(1)} MiB (first → last third, smallest of each): ${steady ? 'steady' : verdict(false) + ' (growing)'}`,
      );
    }
    print(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    churn.stop();
    await sim.stop();
    await gateway.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`soak bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
