/**
 * Ingest throughput, ACK latency, CPU and bytes written per stored event (issue 9), gateway in a
 * child process on CPU 1, simulator here on CPU 0, loopback only. Each device keeps one message in
 * flight, as real panels do. After every case the same run measures the durable floor: a bare
 * better-sqlite3 INSERT + COMMIT loop (WAL, synchronous=FULL, same file system, same CPU) with one
 * commit per `devices` rows, the most a perfect group commit could batch (bench/lib/durable-floor.ts);
 * "vs floor" is Vigil's rate over it, the figure to compare across noisy runs.
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
 */
import { loadavg, tmpdir } from 'node:os';
import { durableFloor, type FloorResult } from './lib/durable-floor.js';
import { PINNING, freePort, pinSelf, startGatewayChild, sleep, type GatewayChild } from './lib/gateway-child.js';
import { runPhase, type PhaseResult } from './lib/run-phase.js';
import { startStoreMinimalChild } from './lib/store-minimal.js';
import { startStoreNothingChild } from './lib/store-nothing.js';
import { formatTable, verdict } from './lib/table.js';

const MEASURE_MS = Number(process.env.BENCH_MEASURE_S ?? 6) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1.5) * 1000;
const FLOOR_S = Number(process.env.BENCH_FLOOR_S ?? 3);
const REPEAT = Math.max(1, Math.min(5, Number(process.env.BENCH_REPEAT ?? 1)));
const DEFAULT_CASES = 'tcp:1:plain,tcp:10:plain,tcp:100:plain,tcp:100:aes,udp:10:plain,tcp:100:plain:paced';
/** The receivers' encryption_password (16 characters: the AES-128 key itself). */
const KEY = 'VigilBench16key!';

interface Case {
  readonly transport: 'tcp' | 'udp';
  readonly devices: number;
  readonly aes: boolean;
  /** Paced at half the rate the same saturating case reached (ACK latency under load, not at the limit). */
  readonly paced: boolean;
}

interface Row extends PhaseResult, Case {
  readonly build: string;
  readonly mode: string;
  readonly floor: FloorResult | null;
}

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

const HEADER = [
  'build',
  'transport',
  'devices',
  'crypto',
  'mode',
  'acked/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'cpu µs/ev',
  'bytes/ev',
  'floor/s',
  'vs floor',
  'floor B/ev',
  'floor cpu µs/ev',
  'sim cpu',
  'gw cpu',
  'other cpu',
  'nak+duh',
  'timeouts',
];

function row(r: Row): (string | number)[] {
  return [
    r.build,
    r.transport,
    r.devices,
    r.aes ? 'AES' : 'plain',
    r.mode,
    r.ackedPerS,
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    r.max.toFixed(1),
    r.cpuUsPerEvent,
    r.bytesPerEvent,
    r.floor?.eventsPerS ?? '-',
    r.floor ? (r.ackedPerS / r.floor.eventsPerS).toFixed(2) : '-',
    r.floor?.bytesPerEvent ?? '-',
    r.floor?.cpuUsPerEvent ?? '-',
    `${r.simCpu}%`,
    `${r.gatewayCpu}%`,
    `${r.otherCpu}%`,
    r.naks + r.duhs,
    r.timeouts,
  ];
}

/** One run of a repeated case, for the spread under its median row. */
function runFigures(r: PhaseResult): string {
  return `${r.ackedPerS}/s ${r.cpuUsPerEvent} µs ${r.bytesPerEvent} B`;
}

/** Devices started per second: a steady-state measurement, not a reconnection storm. */
const CONNECT_RATE = Number(process.env.BENCH_CONNECT_RATE ?? 1000);
/** Events/s of every build's paced phases; unset: half of that build's own saturating rate. */
const PACED_RATE = process.env.BENCH_PACED_RATE ? Math.max(1, Math.round(Number(process.env.BENCH_PACED_RATE))) : null;
const REFERENCE = process.env.BENCH_REFERENCE !== '0';
const REFERENCE_LABEL = 'nothing';
const MINIMUM_LABEL = 'minimum';
/** BENCH_INLINE=1 adds the durable minimum with its commit in the socket thread (no hop; not a design the issue allows). */
const INLINE_LABEL = 'inline';
const INLINE = process.env.BENCH_INLINE === '1';
/** The receivers that are not Vigil: they run the saturating cases only. */
const REFERENCE_LABELS = new Set([REFERENCE_LABEL, MINIMUM_LABEL, INLINE_LABEL]);
const MINIMUM_POLICY = process.env.BENCH_MINIMUM_POLICY === 'pipeline' ? 'pipeline' : 'gather';

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
  const gateways: Array<{ label: string; tcpPort: number; udpPort: number; child: GatewayChild }> = [];
  const rows: Row[] = [];
  try {
    for (const b of builds) {
      const tcpPort = await freePort();
      const udpPort = await freePort();
      const child = await startGatewayChild({
        receivers: {
          tcp: [{ id: 1, port: tcpPort, encryption_password: KEY }],
          udp: [{ id: 2, port: udpPort, encryption_password: KEY }],
        },
        ...(b.buildDir ? { buildDir: b.buildDir } : {}),
      });
      gateways.push({ label: b.label, tcpPort, udpPort, child });
    }
    const addReference = async (
      label: string,
      start: (tcpPort: number, udpPort: number, cpu: number | null) => Promise<GatewayChild>,
    ): Promise<void> => {
      const tcpPort = await freePort();
      const udpPort = await freePort();
      gateways.push({ label, tcpPort, udpPort, child: await start(tcpPort, udpPort, PINNING ? 1 : null) });
    };
    if (REFERENCE) {
      await addReference(REFERENCE_LABEL, (tcp, udp, cpu) => startStoreNothingChild(tcp, udp, KEY, cpu));
      await addReference(MINIMUM_LABEL, (tcp, udp, cpu) =>
        startStoreMinimalChild(tcp, udp, KEY, cpu, 'thread', MINIMUM_POLICY),
      );
      if (INLINE)
        await addReference(INLINE_LABEL, (tcp, udp, cpu) =>
          startStoreMinimalChild(tcp, udp, KEY, cpu, 'inline', MINIMUM_POLICY),
        );
    }
    for (const c of cases) {
      const runs = new Map<string, PhaseResult[]>(gateways.map((g) => [g.label, []]));
      const rates = new Map<string, number>();
      for (const g of gateways) {
        const saturated = rows.find(
          (r) =>
            r.build === g.label &&
            r.transport === c.transport &&
            r.devices === c.devices &&
            r.aes === c.aes &&
            !r.paced,
        );
        if (c.paced && PACED_RATE !== null) rates.set(g.label, PACED_RATE);
        else if (c.paced && saturated) rates.set(g.label, Math.max(1, Math.round(saturated.ackedPerS / 2)));
      }
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
      const floor = c.paced
        ? null
        : await durableFloor(c.devices, FLOOR_S, tmpdir(), PINNING ? 1 : null).catch((err: unknown) => {
            process.stderr.write(`durable floor failed: ${err instanceof Error ? err.message : String(err)}\n`);
            return null;
          });
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
        };
        rows.push(r);
        print(formatTable(HEADER, [row(r)]).split('\n')[2]!);
        if (list.length > 1) print(`  ${g.label} runs: ${list.map(runFigures).join('; ')}`);
      }
      await sleep(300);
    }
  } finally {
    for (const g of gateways) await g.child.stop();
  }
  print('\n' + formatTable(HEADER, rows.map(row)));
  const last = builds[builds.length - 1]!.label;
  const rowOf = (build: string, t: string, devices: number, aes: boolean, paced = false): Row | undefined =>
    rows.find(
      (r) => r.build === build && r.transport === t && r.devices === devices && r.aes === aes && r.paced === paced,
    );
  const find = (t: string, devices: number, aes: boolean, paced = false): Row | undefined =>
    rowOf(last, t, devices, aes, paced);
  const goal = (
    label: string,
    r: Row | undefined,
    value: (r: Row) => number,
    ok: (v: number) => boolean,
    unit = 'events/s',
  ): void => {
    if (r)
      print(
        `  ${label.padEnd(40)} ${value(r)} ${unit} ${verdict(ok(value(r)))}${r.floor ? ` (floor ${r.floor.eventsPerS}/s, ratio ${(r.ackedPerS / r.floor.eventsPerS).toFixed(2)})` : ''}`,
      );
  };
  const reference = rows.filter((r) => r.build === REFERENCE_LABEL);
  if (reference.length > 0) {
    print(
      `\nVigil (build "${last}") against the store-nothing reference (issue 9's table), same simulator, same pinning:`,
    );
    for (const ref of reference) {
      const vigil = find(ref.transport, ref.devices, ref.aes);
      if (!vigil) continue;
      const name = `${ref.transport.toUpperCase()} ${ref.aes ? 'AES-128' : 'plain'}, ${ref.devices} ${ref.transport === 'udp' ? 'senders' : 'connections'}`;
      print(
        `  ${name.padEnd(32)} Vigil ${String(vigil.ackedPerS).padStart(6)}/s  store-nothing ${String(ref.ackedPerS).padStart(6)}/s  ratio ${(vigil.ackedPerS / ref.ackedPerS).toFixed(2)}  (cpu µs/ev ${vigil.cpuUsPerEvent} vs ${ref.cpuUsPerEvent})`,
      );
      const minimum = rowOf(MINIMUM_LABEL, ref.transport, ref.devices, ref.aes);
      if (minimum)
        print(
          `  ${''.padEnd(32)} durable minimum ${String(minimum.ackedPerS).padStart(6)}/s  Vigil / minimum ${(vigil.ackedPerS / minimum.ackedPerS).toFixed(2)}  (cpu µs/ev ${minimum.cpuUsPerEvent}, p99 ${minimum.p99.toFixed(2)} ms)`,
        );
      const inline = rowOf(INLINE_LABEL, ref.transport, ref.devices, ref.aes);
      if (inline)
        print(
          `  ${''.padEnd(32)} minimum, commit inline ${String(inline.ackedPerS).padStart(6)}/s  (cpu µs/ev ${inline.cpuUsPerEvent}, p99 ${inline.p99.toFixed(2)} ms)`,
        );
    }
  }
  print(`\ngoals (issue 9), build "${last}":`);
  goal(
    'TCP 1 connection >= 2,500',
    find('tcp', 1, false),
    (r) => r.ackedPerS,
    (v) => v >= 2500,
  );
  goal(
    'TCP 10 connections >= 20,000',
    find('tcp', 10, false),
    (r) => r.ackedPerS,
    (v) => v >= 20_000,
  );
  goal(
    'TCP 100 connections plain >= 40,000',
    find('tcp', 100, false),
    (r) => r.ackedPerS,
    (v) => v >= 40_000,
  );
  goal(
    'TCP 100 connections AES-128 >= 17,000',
    find('tcp', 100, true),
    (r) => r.ackedPerS,
    (v) => v >= 17_000,
  );
  goal(
    'UDP 10 senders >= 20,000',
    find('udp', 10, false),
    (r) => r.ackedPerS,
    (v) => v >= 20_000,
  );
  goal(
    'CPU per event, TCP 100 plain <= 15 µs',
    find('tcp', 100, false),
    (r) => r.cpuUsPerEvent,
    (v) => v <= 15,
    'µs',
  );
  goal(
    'ACK p99, TCP 100 plain saturating < 5 ms',
    find('tcp', 100, false),
    (r) => Number(r.p99.toFixed(2)),
    (v) => v < 5,
    'ms',
  );
  goal(
    'ACK p99, TCP 100 plain paced at half < 5 ms',
    find('tcp', 100, false, true),
    (r) => Number(r.p99.toFixed(2)),
    (v) => v < 5,
    'ms',
  );
  print(
    '  (bytes/ev: /proc/<gateway>/io write_bytes per ACKed event, all threads; floor B/ev and floor cpu µs/ev the same for the bare loop)',
  );
  print(
    '  (sim cpu near 100% means the simulator, not the gateway, set the pace; other cpu = the rest of the machine, noise)',
  );
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
