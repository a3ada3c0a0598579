/**
 * The central database on a Galera cluster (issue #32): three gateways (in-process: each its own
 * SQLite file, Store and MysqlSync with the production timings) × 1,000 devices sync into one
 * mirror on a real 3-node MariaDB Galera cluster on loopback (test/helpers/galera.ts), each gateway
 * starting on another node with the other two as database.sql_servers.
 *
 * Load per gateway: the rates of bench/site.ts (1 event/s over the site, a link test per device
 * every 60 s, i.e. ~17 object updates/s), then 10× the events (object rows still change at most
 * once per device per minute: the ingest's sightings sweep stores them every 60 s). Events are appended to the journal as the
 * ingest does; devices are not simulated over TCP (the receivers are not what this measures).
 * Phases (each BENCH_GALERA_PHASE_S, default 60 s): 1×; 10×; 10× with node 0 killed for 30 s and
 * restarted (IST); then a backlog of BENCH_GALERA_BACKLOG (20,000) events per gateway appended
 * at once, to measure the most events/s the cluster takes per gateway with three writing.
 *
 * Sync lag = the moment the mirror shows an event (polled every 200 ms on a live node) minus
 * the moment it was journaled. Catch-up after the kill = from the kill to the last moment the
 * oldest event gw0 (which wrote through node 0) had not yet sent was 3 s old or more, watched
 * through the 30 s outage, the node's rejoin and 10 s after it. Refuses when the 1-minute load average is 2 or more
 * (BENCH_FORCE=1 measures anyway).
 *
 *   node dist/bench/galera-sync.js
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createConnection, type Connection } from 'mysql2/promise';
import { systemClock } from '../src/core/clock.js';
import { HealthRegistry } from '../src/core/health.js';
import { silentLogger } from '../src/core/logger.js';
import { MysqlSync } from '../src/store/mysql-sync/mysql-sync.js';
import { INSTANCE_ID_KEY } from '../src/store/mysql-sync/replicate.js';
import { Store } from '../src/store/store.js';
import { startGaleraCluster, type GaleraCluster } from '../test/helpers/galera.js';
import { tempDir } from '../test/helpers/temp-dir.js';
import { sampleJournalEvent } from './lib/journal-sample.js';
import { formatTable } from './lib/table.js';

const PHASE_S = Math.min(600, Number(process.env.BENCH_GALERA_PHASE_S ?? 60));
const BACKLOG = Math.min(200_000, Number(process.env.BENCH_GALERA_BACKLOG ?? 20_000));
const DEVICES = 1000;
const SITE_EVENTS_PER_S = 1;
const LINK_TESTS_PER_S = DEVICES / 60;
const KILL_S = 30;
const CATCH_UP_LIMIT_MS = 180_000;
/** gw0 counts as caught up after the kill when its oldest unsent event is younger than this. */
const CAUGHT_UP_MS = 3000;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Box {
  name: string;
  store: Store;
  sync: MysqlSync;
  installation: string;
  /** journaled-at by event id */
  journaled: Map<number, number>;
  seenMax: number;
  lags: number[];
  remove(): void;
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function startBox(cluster: GaleraCluster, i: number): Promise<Box> {
  const dir = tempDir('vigil-bench-galera-');
  const health = new HealthRegistry(() => Date.now());
  const store = new Store(join(dir.path, 'vigil.db'), silentLogger, health, { clock: systemClock });
  await store.start();
  for (let d = 0; d < DEVICES; d++) {
    await store.write.objects.upsertMain({
      account: String(100000 + d),
      receiverId: 1,
      receiverKind: 'tcp',
      at: Date.now(),
    });
  }
  const order = cluster.nodes.map((_, k) => cluster.nodes[(i + k) % cluster.nodes.length]!);
  const sync = new MysqlSync({
    store,
    target: {
      sqlhost: '127.0.0.1',
      sqlport: order[0]!.port,
      sqluser: 'vigil',
      sqlpass: 'vigilpass',
      sqldatabase: 'vigil',
      sql_tls_mode: 'disabled',
      sql_tls_ca_file: '',
      sql_servers: order.slice(1).map((n) => ({ host: '127.0.0.1', port: n.port })),
    },
    installationName: `gw${i}`,
    version: 'bench',
    health,
    logger: silentLogger,
    clock: systemClock,
  });
  await sync.start();
  return {
    name: `gw${i}`,
    store,
    sync,
    installation: store.meta.get(INSTANCE_ID_KEY)!,
    journaled: new Map(),
    seenMax: 0,
    lags: [],
    remove: dir.remove,
  };
}

/** Appends `count` events now and remembers when. */
async function journal(box: Box, count: number): Promise<void> {
  if (count <= 0) return;
  const now = Date.now();
  const events = Array.from({ length: count }, (_, k) =>
    sampleJournalEvent(Math.floor(Math.random() * DEVICES) + k, now),
  );
  for (const { id } of await box.store.write.events.append(events)) box.journaled.set(id, now);
}

/**
 * Offered load: events and link tests at `factor` × the site's rates, in ~100 ms steps. What is
 * owed follows the elapsed time, so a late timer on a loaded machine does not lower the rate.
 */
function load(boxes: Box[], factor: number): () => void {
  let owedEvents = 0;
  let owedPings = 0;
  let last = performance.now();
  const timer = setInterval(async () => {
    const now = performance.now();
    const elapsedS = (now - last) / 1000;
    last = now;
    owedEvents += SITE_EVENTS_PER_S * factor * elapsedS;
    // The ingest stores a device's sightings at most once per 60 s sweep (docs/receivers.md
    // "markSeen throttling"): faster link tests do not change more object rows per minute.
    owedPings += LINK_TESTS_PER_S * elapsedS;
    const events = Math.floor(owedEvents);
    const pings = Math.floor(owedPings);
    owedEvents -= events;
    owedPings -= pings;
    for (const box of boxes) {
      await journal(box, events);
      for (let p = 0; p < pings; p++) {
        await box.store.write.objects.markSeen(1 + Math.floor(Math.random() * DEVICES), Date.now(), '127.0.0.1:40000', {
          ping: true,
        });
      }
    }
  }, 100);
  return () => clearInterval(timer);
}

class Observer {
  private conn: Connection | null = null;
  private readonly cluster: GaleraCluster;
  private readonly boxes: Box[];
  private timer: NodeJS.Timeout | null = null;
  private busy = false;

  constructor(cluster: GaleraCluster, boxes: Box[]) {
    this.cluster = cluster;
    this.boxes = boxes;
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), 200);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    void this.conn?.end().catch(() => undefined);
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      if (!this.conn) {
        // The last node: node 0 is the one the bench kills.
        const node = this.cluster.nodes[this.cluster.nodes.length - 1]!;
        this.conn = await createConnection({
          host: '127.0.0.1',
          port: node.port,
          user: 'vigil',
          password: 'vigilpass',
          database: 'vigil',
        });
      }
      const [rows] = await this.conn.query('SELECT installation, MAX(id) AS hi FROM events GROUP BY installation');
      const now = Date.now();
      for (const r of rows as Array<{ installation: string; hi: number }>) {
        const box = this.boxes.find((b) => b.installation === r.installation);
        if (!box) continue;
        const hi = Number(r.hi);
        // Batches go in id order: the highest id seen means every id below it is there.
        for (let id = box.seenMax + 1; id <= hi; id++) {
          const at = box.journaled.get(id);
          if (at !== undefined) {
            box.lags.push(now - at);
            box.journaled.delete(id);
          }
        }
        box.seenMax = Math.max(box.seenMax, hi);
      }
    } catch {
      void this.conn?.end().catch(() => undefined);
      this.conn = null;
    } finally {
      this.busy = false;
    }
  }
}

/** Age of the oldest event journaled but not yet seen in the mirror (0 when none). */
function oldestUnseenMs(box: Box): number {
  for (const at of box.journaled.values()) return Date.now() - at;
  return 0;
}

function level(boxes: Box[]): boolean {
  return boxes.every((b) => b.seenMax >= b.store.events.maxId());
}

async function waitLevel(boxes: Box[], limitMs: number): Promise<number | null> {
  const t0 = Date.now();
  while (Date.now() - t0 < limitMs) {
    if (level(boxes)) return Date.now() - t0;
    await sleep(100);
  }
  return null;
}

interface PhaseResult {
  name: string;
  rows: Array<[string, number, number, number]>;
}

async function phase(name: string, boxes: Box[], factor: number, during?: () => Promise<void>): Promise<PhaseResult> {
  for (const b of boxes) b.lags = [];
  const before = boxes.map((b) => b.seenMax);
  const t0 = Date.now();
  const stopLoad = load(boxes, factor);
  const running = during ? during() : Promise.resolve();
  await sleep(PHASE_S * 1000);
  await running;
  stopLoad();
  // Rows that reached the mirror while the load ran, per second of load.
  const seconds = (Date.now() - t0) / 1000;
  const arrived = boxes.map((b, i) => (b.seenMax - before[i]!) / seconds);
  await waitLevel(boxes, CATCH_UP_LIMIT_MS);
  return {
    name,
    rows: boxes.map((b, i) => [b.name, percentile(b.lags, 50) / 1000, percentile(b.lags, 99) / 1000, arrived[i]!]),
  };
}

async function main(): Promise<void> {
  const load1 = loadavg()[0]!;
  print(
    `galera-sync bench: 3 gateways × ${DEVICES} devices, phases of ${PHASE_S} s, backlog ${BACKLOG}; load average ${load1.toFixed(2)}`,
  );
  if (load1 >= 2 && process.env.BENCH_FORCE !== '1') {
    print(`not measured: load average ${load1.toFixed(2)} >= 2 (BENCH_FORCE=1 to measure anyway)`);
    return;
  }
  const t0 = Date.now();
  const cluster = await startGaleraCluster();
  print(`cluster of 3 nodes Synced in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const boxes: Box[] = [];
  let observer: Observer | null = null;
  try {
    for (let i = 0; i < 3; i++) boxes.push(await startBox(cluster, i));
    observer = new Observer(cluster, boxes);
    observer.start();
    if ((await waitLevel(boxes, 60_000)) === null) throw new Error('the first sync did not finish');
    const results: PhaseResult[] = [];
    results.push(await phase('1× site', boxes, 1));
    results.push(await phase('10× site', boxes, 10));
    let levelAfterKill = 0;
    let worstDuringKill = 0;
    let rejoinMs = 0;
    const gw0 = boxes[0]!;
    results.push(
      await phase('10×, node 0 killed 30 s', boxes, 10, async () => {
        await sleep(5000);
        const killedAt = Date.now();
        await cluster.nodes[0]!.kill();
        // gw0 wrote through node 0: the time until its oldest unsent event is again younger than
        // CAUGHT_UP_MS (its steady 10x lag) while it writes through another node.
        // Caught up = after the last moment gw0's oldest unsent event was CAUGHT_UP_MS old or more,
        // watched through the outage, the rejoin and 10 s after it.
        let watching = true;
        let lastBehind = killedAt;
        const watch = (async () => {
          while (watching) {
            const age = oldestUnseenMs(gw0);
            worstDuringKill = Math.max(worstDuringKill, age);
            if (age >= CAUGHT_UP_MS) lastBehind = Date.now();
            await sleep(100);
          }
        })();
        await sleep(KILL_S * 1000);
        const restartAt = Date.now();
        await cluster.nodes[0]!.restart();
        rejoinMs = Date.now() - restartAt;
        await sleep(10_000);
        watching = false;
        await watch;
        levelAfterKill = lastBehind - killedAt;
      }),
    );
    // Drain: a backlog per gateway at once; events/s into the cluster per gateway with all three writing.
    const drainStart = Date.now();
    const startMax = boxes.map((b) => b.seenMax);
    for (const b of boxes) for (let k = 0; k < BACKLOG; k += 1000) await journal(b, Math.min(1000, BACKLOG - k));
    const drained = await waitLevel(boxes, CATCH_UP_LIMIT_MS);
    const drainS = (drained ?? Date.now() - drainStart) / 1000;

    for (const r of results) {
      print(`\n${r.name}`);
      print(
        formatTable(
          ['gateway', 'lag p50 s', 'lag p99 s', 'events/s into cluster'],
          r.rows.map(([n, p50, p99, rate]) => [n, p50.toFixed(2), p99.toFixed(2), rate.toFixed(1)]),
        ),
      );
    }
    print(
      `\nnode 0 killed for ${KILL_S} s: gw0 (writing through node 0) caught up on ${gw0.sync.server} ` +
        `${(levelAfterKill / 1000).toFixed(1)} s after the kill ` +
        `(oldest unsent event < ${CAUGHT_UP_MS / 1000} s old; worst age during the outage ${(worstDuringKill / 1000).toFixed(1)} s); ` +
        `node 0 restarted after ${KILL_S} s, rejoined by IST and Synced in ${(rejoinMs / 1000).toFixed(1)} s`,
    );
    print(
      `backlog of ${BACKLOG} events per gateway, 3 at once: ${drained === null ? 'NOT drained within the limit' : `drained in ${drainS.toFixed(1)} s`}; ` +
        boxes.map((b, i) => `${b.name} ${((b.seenMax - startMax[i]!) / drainS).toFixed(0)} events/s`).join(', '),
    );
    print(`total ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    observer?.stop();
    for (const b of boxes) {
      await b.sync.stop();
      await b.store.stop();
      b.remove();
    }
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  print(`galera-sync bench failed: ${err instanceof Error ? err.stack : String(err)}`);
  process.exitCode = 1;
});
