/**
 * Ingest throughput, ACK latency, CPU and bytes written per stored event (issue 9), gateway in a
 * child process on CPU 1, simulator here on CPU 0, loopback only. Each device keeps one message in
 * flight, as real panels do. Before and after every case the same run measures the durable floor (the
 * faster run counts): a bare better-sqlite3 INSERT + COMMIT loop (WAL, synchronous=FULL, same file
 * system, same CPU) with one commit per `devices` rows, the most a perfect group commit could batch
 * (bench/lib/durable-floor.ts); "vs floor" is Vigil's rate over it, the figure to compare across noisy runs.
 *
 *   node dist/bench/ingest.js
 * BENCH_CASES=tcp:1:plain,tcp:10:plain,... (transport:devices:plain|aes[:paced]); BENCH_PACED_RATE=17000
 * paces every build at that total rate (default: half of the build's own saturating rate); BENCH_REPEAT=3 takes
 * the median run of each case and prints every run under it (the spread); phase length BENCH_MEASURE_S=6
 * BENCH_WARMUP_S=1.5; BENCH_FLOOR_S=3;
 * BENCH_GATEWAY_CLI=<other build>/dist/src/cli.js measures another build; BENCH_COMPARE=<tree of another
 * build> runs that build ("before") and this one ("after") side by side, the two phases of every
 * case back to back (order alternating per repeat), then one floor: the fairest before/after on a
 * machine whose speed drifts;
 * BENCH_CPU_PROF=<dir> writes a .cpuprofile per gateway thread; BENCH_NODE_ARGS="--flag …" passes node flags to the gateway.
 * Every saturating case also runs against the store-nothing reference (bench/lib/store-nothing.ts:
 * Vigil's codec answering at once, no journal), pinned like the gateway, and the summary prints
 * Vigil's rate over it, as issue 9's table does; BENCH_REFERENCE=0 skips it. With it runs the durable
 * minimum (bench/lib/store-minimal.ts: the same codec plus one writer thread committing each batch
 * with synchronous=FULL before the ACKs, one commit per fleet round, nothing else), what the issue's
 * rules cost without Vigil; BENCH_MINIMUM_POLICY=pipeline makes it send what waits as soon as the
 * writer is free instead, and BENCH_INLINE=1 adds the same minimum with the commit in the socket
 * thread (no hop: not a design the issue allows).
 * BENCH_FSYNC_US=0,3000,10000 runs every case (and every reference and floor) once per flush latency,
 * each process of a latency under the slowsync shim (bench/lib/slowsync.ts), and prints Vigil against
 * the flush limit, the floor and store-nothing per latency (bench/lib/ingest-report.ts).
 */
import { loadavg, tmpdir } from 'node:os';
import { durableFloor, type FloorResult } from './lib/durable-floor.js';
import { PINNING, freePort, pinSelf, startGatewayChild, sleep, type GatewayChild } from './lib/gateway-child.js';
import {
  INLINE_LABEL,
  MINIMUM_LABEL,
  REFERENCE_LABEL,
  caseLine,
  printReport,
  runFigures,
  type Case,
  type Row,
} from './lib/ingest-report.js';
import { runPhase, type PhaseResult } from './lib/run-phase.js';
import { checkFlushLatency, flushEnv, flushLabel, parseFsyncList } from './lib/slowsync.js';
import { startStoreMinimalChild } from './lib/store-minimal.js';
import { startStoreNothingChild } from './lib/store-nothing.js';

const MEASURE_MS = Number(process.env.BENCH_MEASURE_S ?? 6) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1.5) * 1000;
const FLOOR_S = Number(process.env.BENCH_FLOOR_S ?? 3);
const REPEAT = Math.max(1, Math.min(5, Number(process.env.BENCH_REPEAT ?? 1)));
const DEFAULT_CASES = 'tcp:1:plain,tcp:10:plain,tcp:100:plain,tcp:100:aes,udp:10:plain,tcp:100:plain:paced';
/** The receivers' encryption_password (16 characters: the AES-128 key itself). */
const KEY = 'VigilBench16key!';

function parseCases(text: string): Case[] {
  return text.split(',').map((spec) => {
    const [transport, devices, crypto, paced] = spec.trim().split(':');
    if ((transport !== 'tcp' && transport !== 'udp') || !Number(devices)) throw new Error(`bad case ${spec}`);
    return { transport, devices: Number(devices), aes: crypto === 'aes', paced: paced === 'paced' };
  });
}

function print(text: string): void {
  process.stdout.write(text + '\n');
}

/** Devices started per second: a steady-state measurement, not a reconnection storm. */
const CONNECT_RATE = Number(process.env.BENCH_CONNECT_RATE ?? 1000);
/** Events/s of every build's paced phases; unset: half of that build's own saturating rate. */
const PACED_RATE = process.env.BENCH_PACED_RATE ? Math.max(1, Math.round(Number(process.env.BENCH_PACED_RATE))) : null;
const REFERENCE = process.env.BENCH_REFERENCE !== '0';
/** BENCH_INLINE=1 adds the durable minimum with its commit in the socket thread (no hop; not a design the issue allows). */
const INLINE = process.env.BENCH_INLINE === '1';
/** The receivers that are not Vigil: they run the saturating cases only. */
const REFERENCE_LABELS = new Set([REFERENCE_LABEL, MINIMUM_LABEL, INLINE_LABEL]);
const MINIMUM_POLICY = process.env.BENCH_MINIMUM_POLICY === 'pipeline' ? 'pipeline' : 'gather';
const FSYNC_LIST = parseFsyncList(process.env.BENCH_FSYNC_US);

interface Gateway {
  readonly label: string;
  readonly tcpPort: number;
  readonly udpPort: number;
  readonly child: GatewayChild;
}

/** The builds and the references, started for one flush latency: every process under the same shim. */
async function startAll(
  builds: ReadonlyArray<{ label: string; buildDir?: string }>,
  fsyncUs: number,
): Promise<Gateway[]> {
  const env = flushEnv(fsyncUs);
  const gateways: Gateway[] = [];
  const cpu = PINNING ? 1 : null;
  const add = async (label: string, start: (tcpPort: number, udpPort: number) => Promise<GatewayChild>) => {
    const tcpPort = await freePort();
    const udpPort = await freePort();
    gateways.push({ label, tcpPort, udpPort, child: await start(tcpPort, udpPort) });
  };
  try {
    for (const b of builds)
      await add(b.label, (tcp, udp) =>
        startGatewayChild({
          receivers: {
            tcp: [{ id: 1, port: tcp, encryption_password: KEY }],
            udp: [{ id: 2, port: udp, encryption_password: KEY }],
          },
          env,
          ...(b.buildDir ? { buildDir: b.buildDir } : {}),
        }),
      );
    if (REFERENCE) {
      await add(REFERENCE_LABEL, (tcp, udp) => startStoreNothingChild(tcp, udp, KEY, cpu, env));
      await add(MINIMUM_LABEL, (tcp, udp) => startStoreMinimalChild(tcp, udp, KEY, cpu, 'thread', MINIMUM_POLICY, env));
      if (INLINE)
        await add(INLINE_LABEL, (tcp, udp) =>
          startStoreMinimalChild(tcp, udp, KEY, cpu, 'inline', MINIMUM_POLICY, env),
        );
    }
    return gateways;
  } catch (err) {
    for (const g of gateways) await g.child.stop();
    throw err;
  }
}

/** The durable floor at `devices` rows per commit under the latency's shim; null (reported) when it fails. */
function floorOf(devices: number, fsyncUs: number): Promise<FloorResult | null> {
  return durableFloor(devices, FLOOR_S, tmpdir(), PINNING ? 1 : null, flushEnv(fsyncUs)).catch((err: unknown) => {
    process.stderr.write(`durable floor failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return null;
  });
}

/**
 * The floor runs before and after a case's phases and the faster run counts: a flush on this shared
 * machine is as slow as its other work makes it, and the faster one is the least the storage needed.
 */
function better(a: FloorResult | null, b: FloorResult | null): FloorResult | null {
  if (!a || !b) return a ?? b;
  return a.eventsPerS >= b.eventsPerS ? a : b;
}

/** Every case against every gateway of one flush latency; the rows are appended to `rows`. */
async function runCases(
  cases: readonly Case[],
  gateways: readonly Gateway[],
  fsyncUs: number,
  rows: Row[],
): Promise<void> {
  for (const c of cases) {
    const runs = new Map<string, PhaseResult[]>(gateways.map((g) => [g.label, []]));
    const rates = new Map<string, number>();
    for (const g of gateways) {
      const saturated = rows.find(
        (r) =>
          r.build === g.label &&
          r.fsyncUs === fsyncUs &&
          r.transport === c.transport &&
          r.devices === c.devices &&
          r.aes === c.aes &&
          !r.paced,
      );
      if (c.paced && PACED_RATE !== null) rates.set(g.label, PACED_RATE);
      else if (c.paced && saturated) rates.set(g.label, Math.max(1, Math.round(saturated.ackedPerS / 2)));
    }
    const floorBefore = c.paced ? null : await floorOf(c.devices, fsyncUs);
    for (let i = 0; i < REPEAT; i++) {
      const order = i % 2 === 0 ? gateways : [...gateways].reverse();
      for (const g of order) {
        const rate = rates.get(g.label);
        if (c.paced && rate === undefined) continue;
        if (c.paced && REFERENCE_LABELS.has(g.label)) continue;
        runs.get(g.label)!.push(
          await runPhase(g.child, {
            label: `${g.label} ${c.transport} ${c.devices} ${c.aes ? 'AES' : 'plain'} ${c.paced ? 'paced' : 'saturating'}`,
            warmupMs: WARMUP_MS,
            measureMs: MEASURE_MS,
            sim: {
              port: c.transport === 'tcp' ? g.tcpPort : g.udpPort,
              transport: c.transport,
              devices: c.devices,
              connectRate: CONNECT_RATE,
              ...(c.paced ? { totalRate: rate! } : { saturate: true }),
              accountBase: c.transport === 'tcp' ? '100000' : '200000',
              key: c.aes ? KEY : null,
              ackTimeoutMs: 5000,
            },
          }),
        );
        await sleep(300);
      }
    }
    const floor = c.paced ? null : better(floorBefore, await floorOf(c.devices, fsyncUs));
    for (const g of gateways) {
      const list = runs.get(g.label)!.sort((a, b) => a.ackedPerS - b.ackedPerS);
      if (list.length === 0) continue;
      const median = list[Math.floor(list.length / 2)]!;
      const r: Row = {
        ...median,
        ...c,
        build: g.label,
        mode: c.paced ? `paced ${rates.get(g.label)}/s` : 'saturate',
        floor,
        fsyncUs,
      };
      rows.push(r);
      print(caseLine(r));
      if (list.length > 1) print(`  ${g.label} runs: ${list.map(runFigures).join('; ')}`);
    }
    await sleep(300);
  }
}

async function main(): Promise<void> {
  const cases = parseCases(process.env.BENCH_CASES ?? DEFAULT_CASES);
  print(
    `ingest bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; warm-up ${WARMUP_MS / 1000} s, measured ${MEASURE_MS / 1000} s per phase, median of ${REPEAT}`,
  );
  print(`gateway: ${process.env.BENCH_GATEWAY_CLI ?? 'this build'}`);
  if (REFERENCE)
    print(
      `durable minimum: one writer thread, ${MINIMUM_POLICY === 'gather' ? 'one commit per fleet round' : 'pipelined'}${INLINE ? '; and the same with the commit inline' : ''}`,
    );
  for (const us of FSYNC_LIST)
    if (us > 0)
      print(`flush latency ${us} µs: the shim takes (${checkFlushLatency(us).toFixed(2)} ms per fsync measured)`);
  print(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other work on this machine skews every figure)`,
  );
  const compare = process.env.BENCH_COMPARE;
  const builds: Array<{ label: string; buildDir?: string }> = compare
    ? [{ label: 'before', buildDir: compare }, { label: 'after' }]
    : [{ label: 'this' }];
  if (compare) print(`comparing ${compare} (before) with this build (after), case by case`);
  const rows: Row[] = [];
  for (const us of FSYNC_LIST) {
    if (FSYNC_LIST.length > 1) print(`\n${flushLabel(us)} (${us} µs per fsync added to every process)`);
    const gateways = await startAll(builds, us);
    try {
      await runCases(cases, gateways, us, rows);
    } finally {
      for (const g of gateways) await g.child.stop();
    }
  }
  printReport(rows, builds[builds.length - 1]!.label, FSYNC_LIST);
  print(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
