/**
 * A mains-failure storm on SD-card-like storage (docs/benchmarks.md §Storm): 5,000 known panels
 * (objects registered before the run, as on a site where they reported before) connect within
 * 10 s from many loopback source addresses, each sends its AC loss (Contact ID 301) once connected
 * and its restore 30 s later, and waits for each ACK as a real panel does (one message in flight,
 * ACK timeout 15 s, 3 retries). The gateway (a child process, CPU 1) runs the receivers' shipped
 * per-source limits and forwards every event to an automation peer in this process over MLR2/TCP.
 * Per flush latency (BENCH_FSYNC_US, every gateway process under the slowsync shim) it prints: the
 * ACK latency (p50/p99/max per wave and overall), the time each wave took to drain, events ACKed,
 * stored, lost and duplicated, the automation's completeness and order, the bytes the gateway
 * wrote per stored event, and the journal's commits, events per commit and commit time that those
 * bytes follow (bench/storm-writes.ts: the bytes at a fixed number of events per commit). Loopback
 * only; bounded in devices (≤ 20,000) and time (each storm ends within its phases' limits, the
 * automation wait within AUTOMATION_WAIT_MS).
 *
 *   node dist/bench/storm.js    # BENCH_FSYNC_US=3000,10000 BENCH_STORM_PANELS=5000 BENCH_STORM_CONNECT_S=10
 *                               # BENCH_STORM_RESTORE_S=30 BENCH_STORM_NATS=10 BENCH_STORM_NAT_PANELS=2500
 *                               # BENCH_STORM_LOST=1 (the panels were lost: the storm restores them)
 * Needs `ulimit -n` above the panels plus a margin (one descriptor per connection on each side).
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { deviceAccount } from '../src/sim/identity.js';
import { resolveSimOptions } from '../src/sim/sim-options.js';
import { Simulator } from '../src/sim/simulator.js';
import { Mlr2Peer } from '../test/outputs/helpers/mlr2-peer.js';
import { tool } from '../test/helpers/system-tools.js';
import { PINNING, freePort, pinSelf, sleep, startGatewayChild } from './lib/gateway-child.js';
import { commitFigures, readCommitCounters, type CommitFigures } from './lib/commit-figures.js';
import { flushSplitBetween, flushStatsFile, otherCommits, readFlushSplit, type FlushSplit } from './lib/flush-split.js';
import { checkFlushLatency, flushEnv, flushLabel, parseFsyncList } from './lib/slowsync.js';
import { checkStorm, journalStormKeys, mlr2StormKey, type StormKey } from './lib/storm-check.js';
import { stormSources } from './lib/storm-sources.js';
import { formatTable, loadAverages, verdict } from './lib/table.js';

const PANELS = Math.min(20_000, Number(process.env.BENCH_STORM_PANELS ?? 5000));
const CONNECT_MS = Number(process.env.BENCH_STORM_CONNECT_S ?? 10) * 1000;
const RESTORE_MS = Number(process.env.BENCH_STORM_RESTORE_S ?? 30) * 1000;
const NATS = Number(process.env.BENCH_STORM_NATS ?? 10);
const NAT_PANELS = Math.min(PANELS, Number(process.env.BENCH_STORM_NAT_PANELS ?? Math.floor(PANELS / 2)));
const FSYNC_LIST = parseFsyncList(process.env.BENCH_FSYNC_US ?? '3000,10000');
/**
 * BENCH_STORM_LOST=1: the panels are supervised (a link test every LOST_PERIOD_S) and the power cut
 * outlasted their timeout: each is lost when the storm starts, and its first message restores it
 * (docs/supervision.md: the state written, an object_restored event journaled).
 */
const LOST = process.env.BENCH_STORM_LOST === '1';
const LOST_PERIOD_S = 60;
/** A panel's wait for its ACK before it sends again (DC-09 panels: typically 10-30 s). */
const ACK_TIMEOUT_MS = 15_000;
/** After the last panel's restore, how long the storm may take to drain before it counts as failed. */
const DRAIN_BOUND_MS = 90_000;
const AUTOMATION_WAIT_MS = 120_000;
const ACCOUNT_BASE = '1000';
const TCP_RECEIVER = 1;
const OUTPUT_ID = 9;
const P99_GOAL_MS = 2000;
/** A progress line this often while the storm runs: who keeps up (the panels starting, the gateway, the automation). */
const PROGRESS_MS = 5000;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const load = loadAverages;

function openFilesLimit(): number {
  const text = execFileSync(tool('sh'), ['-c', 'ulimit -n'], { timeout: 2000 }).toString().trim();
  return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
}

interface Wave {
  readonly name: string;
  p50: number;
  p99: number;
  max: number;
  /** ms from the storm's start to the wave's last ACK (NaN: not every event of it was ACKed). */
  lastAckAt: number;
}

interface StormResult {
  readonly fsyncUs: number;
  readonly connectedMs: number;
  readonly waves: readonly Wave[];
  readonly all: { p50: number; p99: number; max: number };
  readonly sent: number;
  readonly acked: number;
  readonly failed: number;
  readonly retransmits: number;
  readonly stored: number;
  readonly check: ReturnType<typeof checkStorm>;
  /** ms from the storm's start to the automation's last storm line. */
  readonly deliveredAt: number;
  readonly deliveryLagP99: number;
  readonly bytesPerEvent: number;
  /** The journal's commits over the storm (GET /metrics): how many, events per commit, their mean time. */
  readonly commits: CommitFigures | null;
  /** The bytes by the file their flush made durable: the WAL (commits), the main file (checkpoints). */
  readonly split: FlushSplit | null;
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
  readonly load: string;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function storm(fsyncUs: number): Promise<StormResult> {
  const peer = new Mlr2Peer();
  const peerPort = await peer.listen();
  const tcpPort = await freePort();
  const sources = stormSources(PANELS, NATS, NAT_PANELS);
  const accounts = Array.from({ length: PANELS }, (_, i) => deviceAccount(ACCOUNT_BASE, i));
  const flushStats = flushStatsFile();
  // A gateway that does not start (settings another build refuses) must not leave the peer listening.
  const gateway = await startGatewayChild({
    receivers: { tcp: [{ id: TCP_RECEIVER, port: tcpPort }], udp: [] },
    env: flushEnv(fsyncUs, flushStats),
    seed: {
      sourceLimits: 'defaults',
      outputs: [
        {
          id: OUTPUT_ID,
          name: 'storm automation',
          type: 1,
          protocol: 'MLR2',
          identificator: `127.0.0.1:${peerPort}`,
          oid: 0xb1,
          receiver_number: 1,
          line_number: 1,
          enabled: true,
        },
      ],
      objects: accounts.map((account, i) => ({
        account,
        receiverId: TCP_RECEIVER,
        remoteAddress: `${sources[i]}:40000`,
        ...(LOST ? { lostWithPeriodS: LOST_PERIOD_S } : {}),
      })),
    },
  }).catch(async (err: unknown) => {
    await peer.close();
    rmSync(dirname(flushStats), { recursive: true, force: true });
    throw err;
  });
  const ackedAt = new Map<StormKey, number>();
  const sim = new Simulator(
    resolveSimOptions({
      port: tcpPort,
      devices: PANELS,
      accountBase: ACCOUNT_BASE,
      token: 'ADM-CID',
      codes: 'mains',
      restoreAfterMs: RESTORE_MS,
      maxEvents: PANELS * 2,
      connectRate: Math.ceil(PANELS / (CONNECT_MS / 1000)),
      durationMs: CONNECT_MS + RESTORE_MS + DRAIN_BOUND_MS,
      drainMs: ACK_TIMEOUT_MS * 2,
      ackTimeoutMs: ACK_TIMEOUT_MS,
      maxRetries: 3,
      localAddresses: sources,
      link: { hello: false },
    }),
    {
      onAck: (a) => ackedAt.set(`${a.account}${a.data.includes('|1301') ? 'E' : 'R'}`, performance.now()),
    },
  );
  try {
    const commits0 = await readCommitCounters(gateway);
    const split0 = readFlushSplit(flushStats);
    const io0 = gateway.writeBytes();
    const cpu0 = gateway.cpuSeconds();
    let peakRss = gateway.rssKiB();
    const t0 = performance.now();
    sim.start();
    const s = sim.stats;
    const waves: Wave[] = [
      { name: 'AC loss', p50: Number.NaN, p99: Number.NaN, max: Number.NaN, lastAckAt: Number.NaN },
      { name: 'restore', p50: Number.NaN, p99: Number.NaN, max: Number.NaN, lastAckAt: Number.NaN },
    ];
    let connectedMs = Number.NaN;
    let done = false;
    let nextReport = PROGRESS_MS;
    let lastCpu = cpu0;
    void sim.finished().then(() => (done = true));
    // Every wait below ends: the simulator's own duration bounds the run.
    while (!done) {
      await sleep(50);
      const now = performance.now() - t0;
      peakRss = Math.max(peakRss, gateway.rssKiB());
      if (now >= nextReport) {
        const cpu = gateway.cpuSeconds();
        print(
          `  t=${(now / 1000).toFixed(0)} s: started ${sim.progress.started}, connected ${s.connected}, sent ${s.eventsSent}, ACKed ${s.eventsAcked}, automation ${peer.lines.length}; gateway ${Math.round(((cpu - lastCpu) / PROGRESS_MS) * 1e5)}% CPU; load ${loadavg()[0]!.toFixed(1)}`,
        );
        lastCpu = cpu;
        nextReport += PROGRESS_MS;
      }
      if (Number.isNaN(connectedMs) && s.connected >= PANELS) connectedMs = now;
      if (Number.isNaN(waves[0]!.lastAckAt) && s.eventsAcked >= PANELS) {
        // Every loss is ACKed; no restore is due before RESTORE_MS: the histogram so far is the first wave.
        Object.assign(waves[0]!, { lastAckAt: now, ...figures(s.latency) });
        s.recent.reset();
      }
      if (Number.isNaN(waves[1]!.lastAckAt) && s.eventsAcked >= PANELS * 2) {
        Object.assign(waves[1]!, { lastAckAt: now, ...figures(s.recent) });
      }
    }
    const summary = await sim.finished();
    const deadline = performance.now() + AUTOMATION_WAIT_MS;
    const automation = (): StormKey[] =>
      peer
        .events()
        .map(mlr2StormKey)
        .filter((k): k is StormKey => k !== null);
    let lines = automation();
    while (new Set(lines).size < ackedAt.size && performance.now() < deadline) {
      await sleep(100);
      lines = automation();
    }
    const deliveredAt = (peer.lines.at(-1)?.at ?? Number.NaN) - t0;
    const io1 = gateway.writeBytes();
    const split = flushSplitBetween(split0, readFlushSplit(flushStats));
    const cpu1 = gateway.cpuSeconds();
    const commits = commitFigures(commits0, await readCommitCounters(gateway));
    const journal = journalStormKeys(join(gateway.dataDir, 'vigil.db'));
    const lags: number[] = [];
    const firstArrival = new Map<StormKey, number>();
    for (const line of peer.lines) {
      const key = mlr2StormKey(line.text);
      if (key && !firstArrival.has(key)) firstArrival.set(key, line.at);
    }
    for (const [key, at] of firstArrival) {
      const acked = ackedAt.get(key);
      if (acked !== undefined) lags.push(at - acked);
    }
    lags.sort((a, b) => a - b);
    return {
      fsyncUs,
      connectedMs,
      waves,
      all: figures(s.latency),
      sent: summary.events_sent,
      acked: summary.events_acked,
      failed: summary.events_failed,
      retransmits: s.retransmits,
      stored: journal.length,
      check: checkStorm(new Set(ackedAt.keys()), journal, lines),
      deliveredAt,
      deliveryLagP99: percentile(lags, 99),
      bytesPerEvent: Math.round((io1 - io0) / Math.max(1, journal.length)),
      commits,
      split,
      cpuSeconds: Math.round((cpu1 - cpu0) * 10) / 10,
      peakRssMiB: Math.round(peakRss / 102.4) / 10,
      load: load(),
    };
  } finally {
    await sim.stop();
    await gateway.stop();
    await peer.close();
    rmSync(dirname(flushStats), { recursive: true, force: true });
  }
}

function figures(h: { percentile(p: number): number; maxMs: number }): { p50: number; p99: number; max: number } {
  return { p50: h.percentile(50), p99: h.percentile(99), max: h.maxMs };
}

async function main(): Promise<void> {
  const limit = openFilesLimit();
  print(`storm bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; ulimit -n ${limit}`);
  if (limit < PANELS + 1000) {
    print(`  ulimit -n ${limit} < ${PANELS + 1000}: raise it (ulimit -n ${PANELS * 2}) or lower BENCH_STORM_PANELS`);
    process.exitCode = 1;
    return;
  }
  print(
    `${PANELS} known panels${LOST ? ` (supervised, every ${LOST_PERIOD_S} s, and lost)` : ''} (${PANELS - NAT_PANELS} on their own address, ${NAT_PANELS} behind ${NATS} NAT addresses), connecting within ${CONNECT_MS / 1000} s; AC loss at connect, restore ${RESTORE_MS / 1000} s later; ACK timeout ${ACK_TIMEOUT_MS / 1000} s; receivers' shipped per-source limits; MLR2 output to an automation peer`,
  );
  for (const us of FSYNC_LIST)
    if (us > 0)
      print(`flush latency ${us} µs: the shim takes (${checkFlushLatency(us).toFixed(2)} ms per fsync measured)`);
  print(`load average before: ${load()}`);
  const results: StormResult[] = [];
  for (const us of FSYNC_LIST) {
    print(`\n${flushLabel(us)}: storm running (about ${(CONNECT_MS + RESTORE_MS) / 1000 + 10} s)`);
    const r = await storm(us);
    results.push(r);
    print(
      `  connected in ${(r.connectedMs / 1000).toFixed(1)} s; sent ${r.sent}, ACKed ${r.acked}, failed ${r.failed}, retransmits ${r.retransmits}; stored ${r.stored}; load ${r.load}`,
    );
  }
  const ms = (v: number): string => (Number.isNaN(v) ? '-' : v.toFixed(v < 100 ? 1 : 0));
  const s = (v: number): string => (Number.isNaN(v) ? 'not all' : (v / 1000).toFixed(1));
  print(
    '\n' +
      formatTable(
        [
          'flush',
          'ACK p50 ms',
          'ACK p99 ms',
          'ACK max ms',
          'loss p99',
          'restore p99',
          'losses drained s',
          'restores drained s',
          'automation done s',
          'lag p99 ms',
          'ACKed',
          'lost',
          'dup',
          'undelivered',
          'in order',
          'B/ev',
          'commits',
          'ev/commit',
          'commit ms',
          'WAL B/ev',
          'ckpt B/ev',
          'WAL flushes',
          'ckpts',
          'other commits',
          'gw cpu s',
          'peak RSS MiB',
          'load after',
        ],
        results.map((r) => [
          flushLabel(r.fsyncUs),
          ms(r.all.p50),
          ms(r.all.p99),
          ms(r.all.max),
          ms(r.waves[0]!.p99),
          ms(r.waves[1]!.p99),
          s(r.waves[0]!.lastAckAt),
          s(r.waves[1]!.lastAckAt - RESTORE_MS),
          s(r.deliveredAt),
          ms(r.deliveryLagP99),
          r.check.acked,
          r.check.lost,
          r.check.duplicates,
          r.check.undelivered,
          r.check.inOrder && r.check.restoreFirst === 0 ? 'yes' : 'NO',
          r.bytesPerEvent,
          r.commits?.commits ?? '-',
          r.commits?.eventsPerCommit ?? '-',
          r.commits?.commitMs ?? '-',
          r.split ? Math.round(r.split.wal.bytes / Math.max(1, r.stored)) : '-',
          r.split ? Math.round(r.split.db.bytes / Math.max(1, r.stored)) : '-',
          r.split?.wal.flushes ?? '-',
          r.split?.db.flushes ?? '-',
          r.split && r.commits ? otherCommits(r.split, r.commits.commits) : '-',
          r.cpuSeconds,
          r.peakRssMiB,
          r.load,
        ]),
      ),
  );
  print(
    "  (drained: from the storm's start, or from the restores' start, to the wave's last ACK; automation done: to its last storm line; lag: device ACK -> automation line; B/ev: gateway write_bytes over the storm per stored event; commits, ev/commit, commit ms: the journal's over the storm, GET /metrics; WAL B/ev, ckpt B/ev: the bytes written before a flush of the WAL (commits) and of the main file (checkpoints), per stored event; WAL flushes: the journal's commits, every other commit and two per checkpoint; ckpts: checkpoints; other commits: the commits that are not the journal's (output cursor, tracker, write commands), bench/lib/flush-split.ts. B/ev follows ev/commit: a commit writes the pages it touches once whatever it holds, and ev/commit rises with the commit's time, which the flush and the load set; bench/storm-writes.ts gives B/ev at a fixed ev/commit, docs/writer.md §Bytes per event on slow storage)",
  );
  print('goals:');
  for (const r of results) {
    const complete = r.check.acked === PANELS * 2 && r.check.lost === 0;
    print(
      `  ${flushLabel(r.fsyncUs)}: every event ACKed and stored ${verdict(complete)}; automation complete and in order ${verdict(r.check.undelivered === 0 && r.check.inOrder && r.check.restoreFirst === 0)}` +
        (r.fsyncUs === 3000
          ? `; ACK p99 ${ms(r.all.p99)} ms < ${P99_GOAL_MS} ${verdict(r.all.p99 < P99_GOAL_MS)}`
          : ''),
    );
  }
  print(`load average after: ${load()}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`storm bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
