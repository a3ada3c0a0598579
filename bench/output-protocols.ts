/**
 * Figures of the one-byte-ACK output protocols over the TCP client (issue 31 §2: Ademco 685 and the MLR2 variants),
 * loopback only, every phase bounded in time. Per case:
 *   1. backlog drain: BENCH_BACKLOG (10,000) events are journaled into a real SQLite store while no output runs; the
 *      output then starts at the cursor before them and sends them to a reader in this process that frames every
 *      message and ACKs it at once. Printed: events/s, and the p50/p99 of the time between two messages arriving (one
 *      whole cycle: encode, send, ACK, cursor step).
 *   2. live latency: BENCH_LIVE (500) events journaled one at a time at BENCH_RATE (200/s), each timed from its journal
 *      commit to its arrival at the reader (p50/p99).
 * The output runs in the main thread here (not the worker), sharing the core with the reader: a lower bound.
 * Refuses to measure when the 1-minute load average is 2 or more (BENCH_FORCE=1 measures anyway).
 *
 *   node dist/bench/output-protocols.js
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../src/core/clock.js';
import { HealthRegistry } from '../src/core/health.js';
import { createLogger } from '../src/core/logger.js';
import { buildOutput } from '../src/outputs/build-outputs.js';
import type { OutputSettings } from '../src/settings/schema-outputs.js';
import { Store } from '../src/store/store.js';
import type { NewEvent } from '../src/store/types.js';
import { formatTable } from './lib/table.js';

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const LIVE = Number(process.env.BENCH_LIVE ?? 500);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const DRAIN_TIMEOUT_MS = 120_000;

interface Case {
  readonly label: string;
  readonly settings: Partial<OutputSettings>;
  /** The message terminator the reader frames on. */
  readonly terminator: number;
  /** Supervision messages the reader ACKs but does not count. */
  readonly isSupervision: (text: string) => boolean;
  readonly account: string;
}

const CASES: readonly Case[] = [
  {
    label: 'ADEMCO-685',
    settings: { protocol: 'ADEMCO-685', receiver_number: 1, line_number: 2 },
    terminator: 0x0d,
    isSupervision: (t) => t.includes('OKAY'),
    account: '1234',
  },
  {
    label: 'MLR2',
    settings: { protocol: 'MLR2', receiver_number: 1, line_number: 1 },
    terminator: 0x14,
    isSupervision: (t) => t.startsWith('1'),
    account: '1234',
  },
  {
    label: 'MLR2-DG',
    settings: { protocol: 'MLR2-DG', receiver_number: 1, line_number: 1 },
    terminator: 0x14,
    isSupervision: (t) => t.startsWith('1'),
    account: '1234',
  },
  {
    label: 'MLR2-DG, 3-digit line',
    settings: {
      protocol: 'MLR2-DG',
      receiver_number: 1,
      line_number: 100,
      mlr2: { line_digits: 3, long_accounts: 'skip' },
    },
    terminator: 0x14,
    isSupervision: (t) => t.startsWith('1'),
    account: '1234',
  },
  {
    label: 'MLR2-DG, 3-digit line, 10-digit accounts',
    settings: {
      protocol: 'MLR2-DG',
      receiver_number: 1,
      line_number: 100,
      mlr2: { line_digits: 3, long_accounts: 'contact_id_10' },
    },
    terminator: 0x14,
    isSupervision: (t) => t.startsWith('1'),
    account: '12345678',
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

/** Automation software that frames each message on the case's terminator and ACKs it at once. */
class Reader {
  arrivals: number[] = [];
  terminator = 0x14;
  isSupervision: (text: string) => boolean = () => false;
  private readonly sockets = new Set<Socket>();
  private readonly server = createServer((socket) => this.accept(socket));

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  reset(terminator: number, isSupervision: (text: string) => boolean): void {
    this.arrivals = [];
    this.terminator = terminator;
    this.isSupervision = isSupervision;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (let end = pending.indexOf(this.terminator); end >= 0; end = pending.indexOf(this.terminator)) {
        const text = pending.subarray(0, end).toString('latin1');
        pending = pending.subarray(end + 1);
        if (!this.isSupervision(text)) this.arrivals.push(performance.now());
        socket.write(Buffer.from([0x06]));
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.sockets.delete(socket));
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
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-protocols-'));
  const health = new HealthRegistry(() => Date.now());
  const logger = createLogger('bench', () => undefined, 'error');
  const store = new Store(join(dir, 'vigil.db'), logger, health, { clock: systemClock });
  await store.start();
  const reader = new Reader();
  const port = await reader.listen();
  const rows: (string | number)[][] = [];
  const listeners = new Set<() => void>();
  const output = (c: Case) =>
    buildOutput(
      {
        id: 1,
        name: 'bench',
        type: 1,
        protocol: 'MLR2',
        identificator: `127.0.0.1:${port}`,
        oid: 1,
        receiver_number: 1,
        line_number: 1,
        filters: { receivers: [], event_classes: [] },
        enabled: true,
        ...c.settings,
      } as OutputSettings,
      {
        store,
        health,
        logger,
        clock: systemClock,
        onEventStored: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
    );
  try {
    for (const c of CASES) {
      // 1. backlog drain
      const base = store.events.maxId();
      for (let i = 0; i < BACKLOG; i += 500)
        store.events.append(Array.from({ length: Math.min(500, BACKLOG - i) }, (_, j) => event(i + j, c.account)));
      store.cursors.reset(1, base);
      reader.reset(c.terminator, c.isSupervision);
      let out = output(c);
      const started = performance.now();
      await out.start();
      const drained = await waitUntil(() => reader.arrivals.length >= BACKLOG, DRAIN_TIMEOUT_MS);
      const elapsed = performance.now() - started;
      await out.stop();
      const gaps = reader.arrivals.slice(1).map((t, i) => t - reader.arrivals[i]!);
      // 2. live latency
      reader.reset(c.terminator, c.isSupervision);
      store.cursors.reset(1, store.events.maxId());
      out = output(c);
      await out.start();
      const sentAt: number[] = [];
      const until = performance.now() + (LIVE / RATE) * 1000 * 3;
      for (let n = 0; n < LIVE && performance.now() < until; n++) {
        store.events.append([event(n, c.account)]);
        sentAt.push(performance.now());
        for (const listener of listeners) listener();
        await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
      }
      await waitUntil(() => reader.arrivals.length >= sentAt.length, 10_000);
      await out.stop();
      const latencies = reader.arrivals.slice(0, sentAt.length).map((at, i) => at - sentAt[i]!);
      rows.push([
        c.label,
        drained ? Math.round(BACKLOG / (elapsed / 1000)) : 'timeout',
        percentile(gaps, 50).toFixed(2),
        percentile(gaps, 99).toFixed(2),
        `${latencies.length}/${sentAt.length}`,
        percentile(latencies, 50).toFixed(2),
        percentile(latencies, 99).toFixed(2),
      ]);
    }
    print(`load average ${load.toFixed(2)} (1 min) at start, ${loadavg()[0]!.toFixed(2)} at the end`);
    print(
      formatTable(
        [
          'case',
          `drain ${BACKLOG} ev/s`,
          'gap p50 ms',
          'gap p99 ms',
          `live at ${RATE}/s`,
          'live p50 ms',
          'live p99 ms',
        ],
        rows,
      ),
    );
    print('gap: time between two messages arriving during the drain; live: journal commit -> reader, per event');
  } finally {
    await reader.close();
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
