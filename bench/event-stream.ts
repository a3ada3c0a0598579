/**
 * GET /api/events/stream benchmark, in one process over a real HTTP server on loopback and a real
 * SSE client (test/helpers/sse-client.ts), on a temp SQLite file:
 *   backlog  10,000 events stored, then a client resumes from id 0: events/s until the last one;
 *   live     10,000 events stored in batches of 100 (announced like the ingest does) while the client
 *            follows: events/s and the latency from commit to the client's parse (p50, p99, max).
 * The figures mean little on a busy machine, so it refuses to run when the 1-minute load average
 * is 2 or more (prints "not measured") unless given --force. Every phase is bounded in time.
 *
 *   node dist/bench/event-stream.js [--events 10000] [--force]
 */
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo, Server } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createApp } from '../src/api/app.js';
import type { NewEvent } from '../src/core/event-row.js';
import { ADMIN, START, createHarness } from '../test/api/harness.js';
import { openSse } from '../test/helpers/sse-client.js';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '10000' }, force: { type: 'boolean', default: false } },
});
const EVENTS = Math.min(100_000, Math.max(100, Number(values.events)));
const BATCH = 100;
const PHASE_MS = 60_000;

const load = loadavg()[0]!;
if (load >= 2 && !values.force) {
  console.log(`event stream: not measured (1-minute load average ${load.toFixed(2)} >= 2)`);
  process.exit(0);
}

function event(i: number): NewEvent {
  return {
    receivedAt: START + i,
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '198.51.100.7',
    account: String(1000 + (i % 500)),
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: 'BA',
    groupNo: '01',
    zoneNo: String(i % 999).padStart(3, '0'),
    raw: new TextEncoder().encode(`"SIA-DCS"0001L0#${1000 + (i % 500)}[#${1000 + (i % 500)}|Nri01/BA${i % 999}]`),
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const h = await createHarness();
const listeners = new Set<(id: number) => void>();
const app = createApp({
  ...h.deps,
  onEventStored: (l) => (listeners.add(l), () => listeners.delete(l)),
  logger: h.deps.logger.child('bench'),
});
const server = createAdaptorServer({ fetch: app.fetch }) as Server;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/events/stream`;
const token = await h.token(ADMIN.id);
console.log(
  `event stream, ${EVENTS} events; load average before: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);

try {
  // backlog: resume from 0 over a journal that already holds EVENTS
  for (let i = 0; i < EVENTS; i += BATCH)
    await h.store.write.events.append(Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, k) => event(i + k)));
  const started = performance.now();
  const backlog = await openSse(`${base}?after=0`, { Authorization: `Bearer ${token}` });
  let got = 0;
  await backlog.collect((m) => m.event === 'message' && ++got >= EVENTS, PHASE_MS);
  const seconds = (performance.now() - started) / 1000;
  console.log(`backlog  ${got} events in ${seconds.toFixed(2)} s: ${(got / seconds).toFixed(0)} events/s`);
  await backlog.close();

  // live: the client follows while batches are committed and announced
  const live = await openSse(base, { Authorization: `Bearer ${token}` });
  await live.collect((m) => m.event === 'ready', 5000);
  const committedAt = new Map<number, number>();
  const latencies: number[] = [];
  const liveStart = performance.now();
  const reading = live.collect((m) => {
    if (m.event !== 'message') return false;
    const at = committedAt.get(Number(m.id));
    if (at !== undefined) latencies.push(performance.now() - at);
    return latencies.length >= EVENTS;
  }, PHASE_MS);
  for (let i = 0; i < EVENTS && performance.now() - liveStart < PHASE_MS; i += BATCH) {
    const refs = await h.store.write.events.append(
      Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, k) => event(i + k)),
    );
    const now = performance.now();
    for (const r of refs) committedAt.set(r.id, now);
    for (const r of refs) for (const l of listeners) l(r.id);
    await new Promise((r) => setTimeout(r, 5));
  }
  await reading;
  const liveSeconds = (performance.now() - liveStart) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `live     ${latencies.length} events in ${liveSeconds.toFixed(2)} s: ${(latencies.length / liveSeconds).toFixed(0)} events/s; ` +
      `latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
  );
  await live.close();
} finally {
  (server as unknown as { closeAllConnections(): void }).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}
