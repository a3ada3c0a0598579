/**
 * Webhook output figures (issue 31 §2), loopback only, every phase bounded in time:
 *   1. backlog drain: BENCH_BACKLOG (10,000) events are journaled into a real SQLite store while no output runs;
 *      then a webhook output starts at cursor 0 and POSTs them to a receiver in this process that verifies every
 *      signature and answers 200. Printed per batch size (1 and 50): events/s, and the p50/p99 of the time
 *      between two POSTs arriving (one whole POST cycle: sign, send, answer, cursor step).
 *   2. live latency: BENCH_LIVE (1,000) events journaled one at a time at BENCH_RATE (200/s), each timed from its
 *      journal commit to its arrival at the receiver (p50/p99), batch size 1.
 * The output runs in the main thread here (not the worker), sharing the core with the receiver: a lower bound.
 * Refuses to measure when the 1-minute load average is 2 or more (BENCH_FORCE=1 measures anyway).
 *
 *   node dist/bench/webhook.js
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
import type { OutputSettings } from '../src/settings/schema-outputs.js';
import { Store } from '../src/store/store.js';
import type { NewEvent } from '../src/store/types.js';
import { formatTable } from './lib/table.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const LIVE = Number(process.env.BENCH_LIVE ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DRAIN_TIMEOUT_MS = 120_000;
const SECRET = 'bench-webhook-secret-0123456789';

function print(text: string): void {
  process.stdout.write(text + '\n');
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

function event(n: number): NewEvent {
  return {
    receivedAt: Date.now(),
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '127.0.0.1:40000',
    account: '1234',
    dc09Receiver: null,
    dc09Line: null,
    sequence: '0001',
    protocol: 'ADM-CID',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: '130',
    groupNo: '01',
    zoneNo: (n % 1000).toString().padStart(3, '0'),
    text: null,
    raw: Buffer.from(`"ADM-CID"0001R1L1#1234[#1234|1130 01 ${(n % 1000).toString().padStart(3, '0')}]`),
  };
}

/** Verifies, records arrival times per event id, answers 200. */
class Receiver {
  arrivals = new Map<number, number>();
  postTimes: number[] = [];
  bad = 0;
  private readonly server = createServer((req, res) => this.handle(req, res));

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  reset(): void {
    this.arrivals = new Map();
    this.postTimes = [];
  }

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
      const ok =
        verifyWebhook(
          SECRET,
          { signature: header('x-vigil-signature'), timestamp: header('x-vigil-timestamp') },
          raw,
          Date.now() / 1000,
        ) === 'ok';
      if (!ok) {
        this.bad++;
        res.writeHead(401).end();
        return;
      }
      this.postTimes.push(at);
      for (const e of (JSON.parse(raw.toString('utf8')) as { events: { id: number }[] }).events)
        if (!this.arrivals.has(e.id)) this.arrivals.set(e.id, at);
      res.writeHead(200).end();
    });
  }
}

async function waitUntil(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + timeoutMs;
  while (!predicate()) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

async function main(): Promise<void> {
  const load = loadavg()[0]!;
  if (load >= 2 && process.env.BENCH_FORCE !== '1') {
    print(`not measured: load average ${load.toFixed(2)} >= 2 (BENCH_FORCE=1 to measure anyway)`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-webhook-'));
  const health = new HealthRegistry(() => Date.now());
  const logger = createLogger('bench', () => undefined, 'error');
  const store = new Store(join(dir, 'vigil.db'), logger, health, { clock: systemClock });
  await store.start();
  const receiver = new Receiver();
  const port = await receiver.listen();
  const rows: (string | number)[][] = [];
  const listeners = new Set<() => void>();
  const settings = (batch: number): OutputSettings => ({
    id: 1,
    name: 'bench',
    type: 4,
    protocol: 'JSON',
    identificator: `http://127.0.0.1:${port}/hook`,
    oid: 1,
    receiver_number: 0,
    line_number: 0,
    webhook: {
      secret: SECRET,
      timeout_ms: 10_000,
      batch_size: batch,
      retries: 3,
      retry_min_ms: 1000,
      retry_max_ms: 30_000,
      ca_file: '',
    },
    filters: { receivers: [], event_classes: [] },
    enabled: true,
  });
  const output = (batch: number) =>
    buildOutput(settings(batch), {
      store,
      health,
      logger,
      clock: systemClock,
      instanceName: 'bench',
      onEventStored: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
  try {
    for (const batch of [1, 50]) {
      const base = store.events.maxId();
      for (let i = 0; i < BACKLOG; i += 500)
        store.events.append(Array.from({ length: Math.min(500, BACKLOG - i) }, (_, j) => event(i + j)));
      const last = store.events.maxId();
      store.cursors.reset(1, base);
      receiver.reset();
      const out = output(batch);
      const started = performance.now();
      await out.start();
      const done = await waitUntil(() => receiver.arrivals.has(last), DRAIN_TIMEOUT_MS);
      const elapsed = performance.now() - started;
      await out.stop();
      const gaps = receiver.postTimes.slice(1).map((t, i) => t - receiver.postTimes[i]!);
      rows.push([
        `drain ${BACKLOG}, batch ${batch}`,
        done ? Math.round(BACKLOG / (elapsed / 1000)) : 'timeout',
        percentile(gaps, 50).toFixed(2),
        percentile(gaps, 99).toFixed(2),
      ]);
    }
    receiver.reset();
    store.cursors.reset(1, store.events.maxId());
    const out = output(1);
    await out.start();
    const sentAt = new Map<number, number>();
    const until = performance.now() + (LIVE / RATE) * 1000 * 3;
    for (let n = 0; n < LIVE && performance.now() < until; n++) {
      const [ref] = store.events.append([event(n)]);
      sentAt.set(ref!.id, performance.now());
      for (const listener of listeners) listener();
      await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
    }
    await waitUntil(() => [...sentAt.keys()].every((id) => receiver.arrivals.has(id)), 10_000);
    await out.stop();
    const latencies = [...sentAt]
      .filter(([id]) => receiver.arrivals.has(id))
      .map(([id, at]) => receiver.arrivals.get(id)! - at);
    rows.push([
      `live ${sentAt.size} at ${RATE}/s, batch 1`,
      `${latencies.length} delivered`,
      percentile(latencies, 50).toFixed(2),
      percentile(latencies, 99).toFixed(2),
    ]);
    print(`load average ${load.toFixed(2)}; bad signatures ${receiver.bad}`);
    print(formatTable(['case', 'events/s', 'p50 ms', 'p99 ms'], rows));
    print('drain rows: p50/p99 of the time between two POSTs; live row: journal commit -> receiver, per event');
  } finally {
    await receiver.close();
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
