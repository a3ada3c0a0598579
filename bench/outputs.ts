/**
 * Output figures (issue 31 §2), loopback only, every phase bounded in time. One row pair per entry of CASES: adding an
 * output kind, protocol or variant to the figures is one entry (its settings, the peer that reads it, the account).
 *   1. backlog drain: BENCH_BACKLOG (10,000) events are journaled into a real SQLite store while no output runs; then
 *      the output starts at that cursor and delivers them to its peer, which ACKs / answers 200 at once: events/s,
 *      and the p50/p99 of the time between two events arriving (one whole delivery cycle: send, ACK, cursor step).
 *   2. live latency: BENCH_LIVE (1,000) events journaled one at a time at BENCH_RATE (200/s), each timed from its
 *      journal commit to its arrival at the peer (p50/p99).
 * The output runs in the main thread here (not the worker), sharing the core with its peer: a lower bound.
 * Refuses to measure when the 1-minute load average is 2 or more (BENCH_FORCE=1 measures anyway).
 *
 *   node dist/bench/outputs.js            (BENCH_CASES=json,mlr2-dg to run the cases whose name contains a word)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../src/core/clock.js';
import { HealthRegistry } from '../src/core/health.js';
import { createLogger } from '../src/core/logger.js';
import { buildOutput } from '../src/outputs/build-outputs.js';
import { verifyWebhook } from '../src/outputs/webhook-signature.js';
import { defaultSiaDc09, defaultWebhook, type OutputSettings } from '../src/settings/schema-outputs.js';
import { Store } from '../src/store/store.js';
import type { NewEvent } from '../src/core/event-row.js';
import { freePort } from '../test/helpers/net.js';
import { AutomationClient, type ClientProtocol } from '../test/outputs/helpers/automation-client.js';
import { Ademco685Peer } from '../test/outputs/helpers/ademco685-peer.js';
import { Mlr2Peer } from '../test/outputs/helpers/mlr2-peer.js';
import type { TcpAckPeer } from '../test/outputs/helpers/tcp-ack-peer.js';
import { formatTable } from './lib/table.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const LIVE = Number(process.env.BENCH_LIVE ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DRAIN_TIMEOUT_MS = 120_000;
const SECRET = 'bench-webhook-secret-0123456789';

/** What reads the output: an automation client connecting to a TCP server output, or a peer the output reaches. */
type PeerKind =
  | { readonly kind: 'automation-client'; readonly protocol: ClientProtocol }
  | { readonly kind: 'mlr2-peer' }
  | { readonly kind: 'ademco685-peer' }
  | { readonly kind: 'webhook' };

interface OutputCase {
  readonly name: string;
  readonly peer: PeerKind;
  /** The output's own fields; `port` is where the peer listens, or where a TCP server output listens. */
  readonly settings: (port: number) => Partial<OutputSettings>;
  /** The account of the journaled events (default 1234). */
  readonly account?: string;
}

const server = (protocol: OutputSettings['protocol']) => (port: number) => ({
  type: 5 as const,
  protocol,
  identificator: `127.0.0.1:${port}`,
  tcp_server: { allowed_clients: [], no_client_failed_s: 60 },
  ...(protocol === 'SIA-DC09' ? { sia_dc09: { ...defaultSiaDc09(), link_test_interval_s: 0 } } : {}),
});

const webhook = (batch: number) => (port: number) => ({
  type: 4 as const,
  protocol: 'JSON' as const,
  identificator: `http://127.0.0.1:${port}/hook`,
  webhook: { ...defaultWebhook(), secret: SECRET, batch_size: batch },
});

/** A TCP client output (type 1) to a listening automation peer, with the protocol's own fields. */
const client =
  (protocol: OutputSettings['protocol'], fields: Partial<OutputSettings> = {}) =>
  (port: number) => ({
    type: 1 as const,
    protocol,
    identificator: `127.0.0.1:${port}`,
    ...fields,
  });

const mlr2Dg3 = (long_accounts: 'skip' | 'contact_id_10') =>
  client('MLR2-DG', { line_number: 100, mlr2: { line_digits: 3, long_accounts } });

export const CASES: readonly OutputCase[] = [
  { name: 'TCP client MLR2 (baseline)', peer: { kind: 'mlr2-peer' }, settings: client('MLR2') },
  { name: 'TCP server MLR2', peer: { kind: 'automation-client', protocol: 'MLR2' }, settings: server('MLR2') },
  {
    name: 'TCP server SIA-DC09',
    peer: { kind: 'automation-client', protocol: 'SIA-DC09' },
    settings: server('SIA-DC09'),
  },
  { name: 'JSON server', peer: { kind: 'automation-client', protocol: 'JSON' }, settings: server('JSON') },
  { name: 'webhook, batch 1', peer: { kind: 'webhook' }, settings: webhook(1) },
  { name: 'webhook, batch 50', peer: { kind: 'webhook' }, settings: webhook(50) },
  { name: 'TCP client MLR2-DG', peer: { kind: 'mlr2-peer' }, settings: client('MLR2-DG') },
  { name: 'TCP client MLR2-DG, 3-digit line', peer: { kind: 'mlr2-peer' }, settings: mlr2Dg3('skip') },
  {
    name: 'TCP client MLR2-DG, 3-digit line, 10-digit accounts',
    peer: { kind: 'mlr2-peer' },
    settings: mlr2Dg3('contact_id_10'),
    account: '12345678',
  },
  {
    name: 'TCP client ADEMCO-685',
    peer: { kind: 'ademco685-peer' },
    settings: client('ADEMCO-685', { line_number: 2 }),
  },
];

function print(text: string): void {
  process.stdout.write(text + '\n');
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

function event(n: number, account: string): NewEvent {
  const zone = (n % 1000).toString().padStart(3, '0');
  return {
    receivedAt: Date.now(),
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '127.0.0.1:40000',
    account,
    dc09Receiver: null,
    dc09Line: null,
    sequence: '0001',
    protocol: 'ADM-CID',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: '130',
    groupNo: '01',
    zoneNo: zone,
    text: null,
    raw: Buffer.from(`"ADM-CID"0001R1L1#${account}[#${account}|1130 01 ${zone}]`),
  };
}

/** A running peer: the arrival time (performance.now()) of every event it received, in order; heartbeats left out. */
interface Peer {
  readonly port: number;
  readonly arrivals: number[];
  /** Called once the output runs (a client connects to a TCP server output then). */
  attach(): Promise<void>;
  detach(): void;
  close(): Promise<void>;
}

/** Verifies every signature, records arrival times per event, answers 200. */
class WebhookReceiver implements Peer {
  port = 0;
  arrivals: number[] = [];
  bad = 0;
  private readonly server = createServer((req, res) => this.handle(req, res));

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async attach(): Promise<void> {}
  detach(): void {}

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const raw = Buffer.concat(chunks);
      const header = (name: string): string | undefined => req.headers[name] as string | undefined;
      const signed = { signature: header('x-vigil-signature'), timestamp: header('x-vigil-timestamp') };
      if (verifyWebhook(SECRET, signed, raw, Date.now() / 1000) !== 'ok') {
        this.bad++;
        res.writeHead(401).end();
        return;
      }
      for (const _ of (JSON.parse(raw.toString('utf8')) as { events: unknown[] }).events) this.arrivals.push(at);
      res.writeHead(200).end();
    });
  }
}

const HEARTBEAT_RE = /^1011|"NULL"|"type":"heartbeat"/;

/** The automation software connecting to a TCP server output, ACKing every message at once. */
class ConnectingClient implements Peer {
  arrivals: number[] = [];
  private client: AutomationClient | null = null;
  constructor(
    readonly port: number,
    private readonly protocol: ClientProtocol,
  ) {}

  async attach(): Promise<void> {
    const client = new AutomationClient({ protocol: this.protocol, port: this.port });
    client.policy = (message) => {
      if (!HEARTBEAT_RE.test(message.toString('latin1'))) this.arrivals.push(performance.now());
      return 'ack';
    };
    // The output binds its port in its loop: retry the connect briefly.
    for (let i = 0; i < 100; i++) {
      try {
        await client.connect();
        this.client = client;
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    throw new Error(`cannot connect to the TCP server output on ${this.port}`);
  }

  detach(): void {
    this.client?.close();
    this.client = null;
  }

  async close(): Promise<void> {
    this.detach();
  }
}

/**
 * The automation software listening for a TCP client output (type 1): a test peer that ACKs at once, and the arrival
 * times of its messages that are events (heartbeats / OKAY test messages left out).
 */
class ListeningPeer<P extends TcpAckPeer, M extends { readonly at: number }> implements Peer {
  port = 0;
  private readonly peer: P;
  constructor(
    Peer: new () => P,
    /** Everything the peer received, in order. */
    private readonly received: (peer: P) => M[],
    private readonly isEvent: (message: M) => boolean,
  ) {
    this.peer = new Peer();
  }
  get arrivals(): number[] {
    return this.received(this.peer)
      .filter(this.isEvent)
      .map((m) => m.at);
  }
  async listen(): Promise<this> {
    this.port = await this.peer.listen();
    return this;
  }
  async attach(): Promise<void> {}
  detach(): void {
    this.received(this.peer).length = 0;
  }
  close(): Promise<void> {
    return this.peer.close();
  }
}

async function startPeer(kind: PeerKind): Promise<Peer> {
  if (kind.kind === 'webhook') return new WebhookReceiver().listen();
  if (kind.kind === 'mlr2-peer')
    return new ListeningPeer(
      Mlr2Peer,
      (p) => p.lines,
      (l) => !HEARTBEAT_RE.test(l.text),
    ).listen();
  if (kind.kind === 'ademco685-peer')
    return new ListeningPeer(
      Ademco685Peer,
      (p) => p.messages,
      (m) => m.kind !== 'okay',
    ).listen();
  return new ConnectingClient(await freePort(), kind.protocol);
}

async function waitUntil(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

async function measure(c: OutputCase, store: Store, health: HealthRegistry): Promise<(string | number)[][]> {
  const logger = createLogger('bench', () => undefined, 'error');
  const listeners = new Set<() => void>();
  const peer = await startPeer(c.peer);
  const account = c.account ?? '1234';
  const output = () =>
    buildOutput(
      {
        id: 1,
        name: 'bench',
        oid: 1,
        receiver_number: 1,
        line_number: 1,
        filters: { receivers: [], event_classes: [] },
        enabled: true,
        ...c.settings(peer.port),
      } as OutputSettings,
      {
        store,
        health,
        logger,
        clock: systemClock,
        instanceName: 'bench',
        onEventStored: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    );
  const rows: (string | number)[][] = [];
  try {
    const base = store.events.maxId();
    for (let i = 0; i < BACKLOG; i += 500)
      await store.write.events.append(
        Array.from({ length: Math.min(500, BACKLOG - i) }, (_, j) => event(i + j, account)),
      );
    await store.write.cursors.reset(1, base);
    peer.arrivals.length = 0;
    let out = output();
    const started = performance.now();
    await out.start();
    await peer.attach();
    const done = await waitUntil(() => peer.arrivals.length >= BACKLOG, DRAIN_TIMEOUT_MS);
    const elapsed = performance.now() - started;
    const times = [...peer.arrivals];
    await out.stop();
    peer.detach();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    rows.push([
      `${c.name}: drain ${BACKLOG}`,
      done ? Math.round(BACKLOG / (elapsed / 1000)) : `timeout (${times.length})`,
      percentile(gaps, 50).toFixed(2),
      percentile(gaps, 99).toFixed(2),
    ]);

    await store.write.cursors.reset(1, store.events.maxId());
    peer.arrivals.length = 0;
    out = output();
    await out.start();
    await peer.attach();
    const sentAt: number[] = [];
    const until = performance.now() + (LIVE / RATE) * 1000 * 3;
    for (let n = 0; n < LIVE && performance.now() < until; n++) {
      await store.write.events.append([event(n, account)]);
      sentAt.push(performance.now());
      for (const listener of listeners) listener();
      await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
    }
    await waitUntil(() => peer.arrivals.length >= sentAt.length, 10_000);
    await out.stop();
    // In order and one message in flight: the i-th arrival is the i-th event.
    const latencies = peer.arrivals.slice(0, sentAt.length).map((at, i) => at - sentAt[i]!);
    rows.push([
      `${c.name}: live ${sentAt.length} at ${RATE}/s`,
      `${latencies.length} delivered`,
      percentile(latencies, 50).toFixed(2),
      percentile(latencies, 99).toFixed(2),
    ]);
  } finally {
    await peer.close();
  }
  return rows;
}

async function main(): Promise<void> {
  const load = loadavg()[0]!;
  if (load >= 2 && process.env.BENCH_FORCE !== '1') {
    print(`not measured: load average ${load.toFixed(2)} >= 2 (BENCH_FORCE=1 to measure anyway)`);
    return;
  }
  const only = (process.env.BENCH_CASES ?? '').split(',').filter(Boolean);
  const cases = CASES.filter(
    (c) => only.length === 0 || only.some((w) => c.name.toLowerCase().includes(w.toLowerCase())),
  );
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-outputs-'));
  const health = new HealthRegistry(() => Date.now());
  const logger = createLogger('bench', () => undefined, 'error');
  const store = new Store(join(dir, 'vigil.db'), logger, health, { clock: systemClock });
  await store.start();
  const rows: (string | number)[][] = [];
  try {
    for (const c of cases) rows.push(...(await measure(c, store, health)));
    print(`load average ${load.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at the end`);
    print(formatTable(['case', 'events/s', 'p50 ms', 'p99 ms'], rows));
    print('drain rows: p50/p99 of the time between two events arriving; live rows: journal commit -> peer, per event');
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
