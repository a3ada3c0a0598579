/**
 * The whole pipeline, device to automation (issue 4 targets), loopback only, every phase bounded in time:
 *   1. latency: devices send ADM-CID events over TCP to a receiver of the gateway (a child process, CPU 1) at
 *      1,000 events/s; the gateway journals them and its MLR2 output forwards them to an automation peer here
 *      (CPU 0) that ACKs at once. Prints device send -> automation ACK p50/p99 (target p99 < 50 ms).
 *   2. backlog drain: with the output disabled, 100,000 events are journaled through the receiver; then the
 *      output is enabled (restart-services) and drains the backlog to the peer. Prints events/s (target >= 5,000).
 *
 *   node dist/bench/pipeline.js
 * Tune with BENCH_RATE=1000 BENCH_LATENCY_S=10 BENCH_DEVICES=10 BENCH_BACKLOG=100000.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { buildMessage } from '../src/protocols/dc09/index.js';
import { PINNING, freePort, pinSelf, sleep, startGatewayChild, type GatewayChild } from './lib/gateway-child.js';
import { formatTable, verdict } from './lib/table.js';

const RATE = Number(process.env.BENCH_RATE ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_S ?? 10) * 1000;
const DEVICES = Number(process.env.BENCH_DEVICES ?? 10);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);
const FILL_TIMEOUT_MS = 120_000;
const DRAIN_TIMEOUT_MS = 120_000;
const OUTPUT_ID = 9;

function print(text: string): void {
  process.stdout.write(text + '\n');
}

const hex = (n: number, width: number): string => n.toString(16).toUpperCase().padStart(width, '0');

/** A unique (account, zone) per event number, so every MLR2 line can be matched to its send time. */
function eventFields(n: number): { account: string; zone: string } {
  return { account: hex(0x1000 + (n >> 12), 4), zone: hex(n & 0xfff, 3) };
}

function mlr2Line(n: number): string {
  const { account, zone } = eventFields(n);
  return `5011 18${account}E13001${zone}`;
}

/** Automation software stand-in: ACKs every DC4-terminated line at once and notes when it arrived. */
class AutomationPeer {
  arrivals = new Map<string, number>();
  count = 0;
  firstAt = 0;
  lastAt = 0;
  record = true;
  private server: Server | null = null;

  async listen(): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    this.server = server;
    const address = server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  reset(record: boolean): void {
    this.arrivals = new Map();
    this.count = 0;
    this.firstAt = 0;
    this.lastAt = 0;
    this.record = record;
  }

  close(): Promise<void> {
    const server = this.server;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      let acks = 0;
      for (let end = pending.indexOf('\x14'); end >= 0; end = pending.indexOf('\x14')) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        acks++;
        if (line.startsWith('1011')) continue;
        const now = performance.now();
        if (this.count === 0) this.firstAt = now;
        this.lastAt = now;
        this.count++;
        if (this.record && !this.arrivals.has(line)) this.arrivals.set(line, now);
      }
      if (acks > 0) socket.write(Buffer.alloc(acks, 0x06));
    });
    socket.on('error', () => undefined);
  }
}

/** One device: a TCP connection to the receiver that sends ADM-CID frames and counts the receiver's ACKs. */
class Device {
  acked = 0;
  /** Receiver ACK latencies (ms) of the frames sent while `timing` is on: the ingest's share of the total. */
  readonly ackLatencies: number[] = [];
  timing = false;
  private readonly sentAt: number[] = [];
  private readonly socket: Socket;
  private sequence = 0;
  private pending = '';

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.pending += chunk.toString('latin1');
      for (let end = this.pending.indexOf('\r'); end >= 0; end = this.pending.indexOf('\r')) {
        if (this.pending.slice(0, end).includes('"ACK"')) {
          this.acked++;
          const at = this.sentAt.shift();
          if (at !== undefined) this.ackLatencies.push(performance.now() - at);
        }
        this.pending = this.pending.slice(end + 1);
      }
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<Device> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(new Device(socket)));
      socket.once('error', reject);
    });
  }

  send(n: number): void {
    this.sequence = this.sequence >= 9999 ? 1 : this.sequence + 1;
    const { account, zone } = eventFields(n);
    const data = `#${account}|1130 01 ${zone}`;
    if (this.timing) this.sentAt.push(performance.now());
    this.socket.write(buildMessage({ token: 'ADM-CID', sequence: this.sequence, receiver: 1, line: 1, account, data }));
  }

  close(): void {
    this.socket.destroy();
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function configureOutput(gateway: GatewayChild, peerPort: number, enabled: boolean): Promise<void> {
  const output = {
    id: OUTPUT_ID,
    name: 'bench automation',
    type: 1,
    protocol: 'MLR2',
    identificator: `127.0.0.1:${peerPort}`,
    oid: 0xb1,
    receiver_number: 1,
    line_number: 1,
    enabled,
  };
  const put = await gateway.api('PUT', '/api/settings', { outputs: [output] });
  if (put.status !== 200) throw new Error(`PUT /api/settings: ${put.status} ${put.text}`);
  const restart = await gateway.api('GET', '/api/restart-services');
  if (restart.status !== 200) throw new Error(`restart-services: ${restart.status} ${restart.text}`);
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (check()) return true;
    await sleep(5);
  }
  return check();
}

interface LatencyResult {
  sent: number;
  p50: number;
  p99: number;
  max: number;
  lost: number;
  next: number;
  ackP50: number;
  ackP99: number;
}

async function latencyPhase(rxPort: number, peer: AutomationPeer, first: number): Promise<LatencyResult> {
  const devices = await Promise.all(Array.from({ length: DEVICES }, () => Device.open(rxPort)));
  for (const device of devices) device.timing = true;
  peer.reset(true);
  const sentAt = new Map<string, number>();
  let n = first;
  const started = performance.now();
  // Paced on the clock, not on timers: each 1 ms tick sends what is due, so the rate holds under timer jitter.
  while (performance.now() - started < LATENCY_MS) {
    const due = first + Math.floor(((performance.now() - started) / 1000) * RATE);
    while (n < due) {
      sentAt.set(mlr2Line(n), performance.now());
      devices[n % DEVICES]!.send(n);
      n++;
    }
    await sleep(1);
  }
  const sent = n - first;
  await waitUntil(() => peer.arrivals.size >= sent, 10_000);
  for (const device of devices) device.close();
  const latencies: number[] = [];
  const worstPerSecond = new Array<number>(Math.ceil(LATENCY_MS / 1000)).fill(0);
  for (const [line, at] of sentAt) {
    const arrived = peer.arrivals.get(line);
    if (arrived === undefined) continue;
    latencies.push(arrived - at);
    const second = Math.min(worstPerSecond.length - 1, Math.floor((at - started) / 1000));
    worstPerSecond[second] = Math.max(worstPerSecond[second]!, arrived - at);
  }
  print(`  worst latency per second of the phase (ms): ${worstPerSecond.map((v) => v.toFixed(0)).join(' ')}`);
  latencies.sort((a, b) => a - b);
  const acks = devices.flatMap((d) => d.ackLatencies).sort((a, b) => a - b);
  return {
    sent,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    lost: sent - latencies.length,
    next: n,
    ackP50: percentile(acks, 50),
    ackP99: percentile(acks, 99),
  };
}

async function fillBacklog(rxPort: number, first: number): Promise<{ seconds: number; acked: number }> {
  const devices = await Promise.all(Array.from({ length: DEVICES }, () => Device.open(rxPort)));
  const perDevice = Math.ceil(BACKLOG / DEVICES);
  const window = 50; // frames in flight per device: enough to keep the group commit busy
  const started = performance.now();
  let sent = 0;
  const sentBy = new Array<number>(DEVICES).fill(0);
  while (performance.now() - started < FILL_TIMEOUT_MS) {
    let progressed = false;
    for (let d = 0; d < DEVICES; d++) {
      const device = devices[d]!;
      while (sentBy[d]! < perDevice && sent < BACKLOG && sentBy[d]! - device.acked < window) {
        device.send(first + sent);
        sentBy[d]!++;
        sent++;
        progressed = true;
      }
    }
    const acked = devices.reduce((a, d) => a + d.acked, 0);
    if (acked >= BACKLOG) break;
    await sleep(progressed ? 0 : 1);
  }
  const acked = devices.reduce((a, d) => a + d.acked, 0);
  for (const device of devices) device.close();
  return { seconds: (performance.now() - started) / 1000, acked };
}

async function main(): Promise<void> {
  print(
    `pipeline bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; ${DEVICES} devices, ${RATE} events/s for ${LATENCY_MS / 1000} s, backlog ${BACKLOG}`,
  );
  const peer = new AutomationPeer();
  const peerPort = await peer.listen();
  const rxPort = await freePort();
  const gateway = await startGatewayChild({ receivers: { tcp: [{ id: 1, port: rxPort }], udp: [] } });
  try {
    await configureOutput(gateway, peerPort, true);
    await sleep(300);
    const latency = await latencyPhase(rxPort, peer, 0);
    print(
      `latency: ${latency.sent} events sent, ${latency.lost} not seen by the peer; p50 ${latency.p50.toFixed(2)} ms, p99 ${latency.p99.toFixed(2)} ms, max ${latency.max.toFixed(1)} ms`,
    );
    print(
      `  of which receiver ACK (journal commit): p50 ${latency.ackP50.toFixed(2)} ms, p99 ${latency.ackP99.toFixed(2)} ms`,
    );

    await configureOutput(gateway, peerPort, false);
    const fill = await fillBacklog(rxPort, latency.next);
    print(
      `backlog: ${fill.acked} events journaled (receiver ACKs) in ${fill.seconds.toFixed(1)} s with the output disabled`,
    );
    peer.reset(false);
    const enabledAt = performance.now();
    await configureOutput(gateway, peerPort, true);
    const drained = await waitUntil(() => peer.count >= fill.acked, DRAIN_TIMEOUT_MS);
    const total = (peer.lastAt - enabledAt) / 1000;
    const steady = (peer.lastAt - peer.firstAt) / 1000;
    const rate = peer.count / Math.max(steady, 1e-3);
    print(
      `drain: ${peer.count} of ${fill.acked} lines ${drained ? '' : '(TIMED OUT) '}in ${total.toFixed(2)} s after enabling (${steady.toFixed(2)} s first to last line)`,
    );

    print('');
    print(
      formatTable(
        ['figure', 'value', 'target', 'verdict'],
        [
          ['latency p50 (device send -> automation ACK)', `${latency.p50.toFixed(2)} ms`, '', ''],
          [
            'latency p99 at 1,000 events/s',
            `${latency.p99.toFixed(2)} ms`,
            '< 50 ms',
            verdict(latency.p99 < 50 && latency.lost === 0),
          ],
          ['  receiver ACK p99 (ingest share)', `${latency.ackP99.toFixed(2)} ms`, '', ''],
          [
            'backlog drain to a local MLR2 peer',
            `${Math.round(rate)} events/s`,
            '>= 5,000/s',
            verdict(rate >= 5000 && drained),
          ],
        ],
      ),
    );
  } finally {
    await gateway.stop();
    await peer.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
