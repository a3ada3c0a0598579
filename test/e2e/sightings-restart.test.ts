/**
 * Throttled sightings (docs/receivers.md "markSeen throttling", docs/supervision.md §Restart) in
 * the real gateway: a `vigil serve` child, devices sending DC-09 NULL link tests over real TCP, the
 * real Tracker and SQLite file. Between sweeps the file's last_ping is stale while GET /api/objects
 * shows the exact one; after SIGKILL (a checkpoint taken at the very end: the worst case) a device
 * heard before the crash and again within its period is not reported lost, while one silent since
 * before the crash still is, within its timeout; a clean stop writes every sighting.
 */
import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { SIGHTINGS_FLUSHED_KEY } from '../../src/writer/seen-log.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { buildMessage } from '../../src/protocols/dc09/index.js';
import { Store } from '../../src/store/store.js';
import { CHECKPOINT_KEY } from '../../src/tracker/tracker.js';
import { applySettings, serveChild, waitHealthy } from '../helpers/gateway-process.js';
import { LOOPBACK, freePort, sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

const S = 1000;
/** Clear of the shortest gap the tracker learns from (MIN_SAMPLE_S, 5 s); timeout = period × 1 + 10 s. */
const PERIOD_MS = 6 * S;
const TOLERANCE_S = 10;

/** A panel that sends a NULL link test at connect and every PERIOD_MS, and reconnects while it runs. */
class LinkTester {
  /** Date.now() of each ACKed link test. */
  readonly acked: number[] = [];
  private socket: Socket | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sequence = 0;
  private running = true;

  constructor(
    readonly account: string,
    private readonly port: number,
  ) {
    this.open();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.destroy();
  }

  private open(): void {
    if (!this.running) return;
    const framer = new Dc09Framer();
    const socket = connect({ host: LOOPBACK, port: this.port });
    this.socket = socket;
    socket.on('error', () => undefined);
    socket.on('close', () => {
      if (this.timer) clearTimeout(this.timer);
      if (this.running) setTimeout(() => this.open(), 200);
    });
    socket.on('data', (chunk: Buffer) => {
      for (const item of framer.push(chunk)) {
        if (item.kind === 'frame' && item.body.toString('latin1').startsWith('"ACK"')) this.acked.push(Date.now());
      }
    });
    socket.once('connect', () => this.ping());
  }

  private ping(): void {
    if (!this.running || !this.socket) return;
    this.sequence = (this.sequence % 9999) + 1;
    this.socket.write(
      buildMessage({ token: 'NULL', sequence: this.sequence, receiver: 1, line: 1, account: this.account, data: '' }),
    );
    this.timer = setTimeout(() => this.ping(), PERIOD_MS);
  }
}

interface ObjectItem {
  account: string;
  last_seen: string;
  last_ping: string | null;
  connection_state: string;
}

async function withStore<T>(path: string, fn: (store: Store) => T | Promise<T>, readonly = true): Promise<T> {
  const store = new Store(path, silentLogger, undefined, { readonly });
  await store.start();
  try {
    return await fn(store);
  } finally {
    await store.stop();
  }
}

function exited(child: ChildProcess): Promise<unknown> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', resolve));
}

test('the API shows sightings the file has not yet; after SIGKILL a live device is not lost and a silent one is; a clean stop writes them all', async () => {
  const dir = tempDir();
  const db = join(dir.path, 'vigil.db');
  const httpPort = await freePort();
  const rxPort = await freePort();
  const base = `http://${LOOPBACK}:${httpPort}`;
  let child = serveChild(dir.path, httpPort);
  const testers: LinkTester[] = [];
  try {
    await waitHealthy(httpPort);
    const headers = await applySettings(dir.path, httpPort, ['settings', 'restart_services', 'objects'], {
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
      tracker: { timeout_multiplier: 1, timeout_tolerance: TOLERANCE_S },
    });
    const objects = async (): Promise<Map<string, ObjectItem>> => {
      const res = await fetch(`${base}/api/objects`, { headers });
      const body = (await res.json()) as { items: ObjectItem[] };
      return new Map(body.items.map((o) => [o.account, o]));
    };
    const stored = (account: string) => withStore(db, (store) => store.objects.findByAccount(account, 1)[0]!);
    const lostEvents = () =>
      withStore(db, (store) =>
        store.events
          .query({ receiverIds: null, limit: 1000 })
          .items.filter((e) => e.protocol === 'INTERNAL' && e.qualifier === 'E' && e.code === '350')
          .map((e) => e.account),
      );

    // Link tests 6 s apart: the tracker learns the period (6 s, or 7 when a timer ran late) from the third.
    const live = new LinkTester('A001', rxPort);
    const silent = new LinkTester('B002', rxPort);
    testers.push(live, silent);
    await waitFor(() => live.acked.length >= 5 && silent.acked.length >= 5, 6 * PERIOD_MS);
    await waitFor(
      async () => (await stored('A001')).linkPeriodS !== null && (await stored('B002')).linkPeriodS !== null,
      5 * S,
    );
    const periodS = Math.max((await stored('A001')).linkPeriodS!, (await stored('B002')).linkPeriodS!);
    assert.ok(periodS <= 7, `period ${periodS} s`);
    const TIMEOUT_MS = (periodS + TOLERANCE_S) * S;

    // Between sweeps (60 s from the writer's start): the file holds the first ping, the API the last.
    const api = (await objects()).get('A001')!;
    const file = await stored('A001');
    const lastAck = live.acked[live.acked.length - 1]!;
    assert.ok(
      Math.abs(Date.parse(api.last_ping!) - lastAck) < 1000,
      `API last_ping ${api.last_ping}, last ACK ${new Date(lastAck).toISOString()}`,
    );
    assert.is(api.last_seen, api.last_ping);
    assert.ok(
      Date.parse(api.last_ping!) - file.lastPing! >= 2.5 * PERIOD_MS,
      `the file's last_ping ${new Date(file.lastPing!).toISOString()} is the first one`,
    );

    // B002 goes silent with the crash; A001 reconnects as soon as the gateway is back.
    child.kill('SIGKILL');
    silent.stop();
    await exited(child);
    const killedAt = Date.now();
    // The worst case: the previous run's last checkpoint taken just before the crash, long after the stored last_seen.
    await withStore(
      db,
      async (store) => {
        assert.is(
          store.meta.get(SIGHTINGS_FLUSHED_KEY),
          null,
          'a crash leaves no mark that the sightings were written',
        );
        const checkpoint = JSON.parse(store.meta.get(CHECKPOINT_KEY)!) as { run_started_at: number };
        await store.write.meta.set(
          CHECKPOINT_KEY,
          JSON.stringify({ run_started_at: checkpoint.run_started_at, alive_at: killedAt }),
        );
      },
      false,
    );
    assert.ok(
      killedAt - (await stored('A001')).lastSeen > TIMEOUT_MS,
      'without the lag allowance the live device would look overdue',
    );

    child = serveChild(dir.path, httpPort);
    await waitHealthy(httpPort);
    const restartedAt = Date.now();
    await waitFor(async () => (await lostEvents()).includes('B002'), TIMEOUT_MS + 5 * S, 250);
    assert.ok(
      Date.now() - restartedAt <= TIMEOUT_MS + 5 * S,
      'the silent device is reported within its timeout of the start',
    );
    // The live device reconnected and keeps its period: watched past the silent one's report and its own grace.
    await sleep(Math.max(0, restartedAt + TIMEOUT_MS + 3 * S - Date.now()));
    assert.equal(await lostEvents(), ['B002']);
    assert.is((await objects()).get('A001')!.connection_state, 'online');

    // A clean stop writes every pending sighting, with the mark.
    live.stop();
    await sleep(300);
    const shown = (await objects()).get('A001')!;
    child.kill('SIGTERM');
    await exited(child);
    await withStore(db, (store) => {
      const row = store.objects.findByAccount('A001', 1)[0]!;
      assert.equal(
        [new Date(row.lastSeen).toISOString(), row.lastPing === null ? null : new Date(row.lastPing).toISOString()],
        [shown.last_seen, shown.last_ping],
      );
      assert.ok(Number(store.meta.get(SIGHTINGS_FLUSHED_KEY)) > 0);
    });
  } finally {
    for (const tester of testers) tester.stop();
    child.kill('SIGKILL');
    await exited(child);
    dir.remove();
  }
});

test.run();
