/**
 * Ingest throughput and ACK latency (issue 3 targets), gateway in a child process on CPU 1,
 * simulator here on CPU 0, loopback only:
 *   - saturating fleets of 1, 100 and 1,000 devices over TCP and over UDP, plain and AES:
 *     sustained ACKed events/s and ACK latency p50/p99 (each device keeps one message in flight,
 *     as real panels do);
 *   - then 100 devices paced at half the rate measured for 100 saturating devices: p99.
 * Targets: >= 25,000 events/s with 100 plain devices, >= 15,000 with AES, ACK p99 < 20 ms at
 * half that rate.
 *
 *   node dist/bench/ingest.js
 * Narrow it with BENCH_TRANSPORTS=tcp BENCH_FLEETS=100 BENCH_CRYPTO=plain BENCH_HALF=0; phase length
 * BENCH_MEASURE_S=6 BENCH_WARMUP_S=1.5; BENCH_CPU_PROF=<dir> writes a .cpuprofile of the gateway.
 */
import { loadavg } from 'node:os';
import { PINNING, freePort, pinSelf, startGatewayChild, sleep } from './lib/gateway-child.js';
import { runPhase, type PhaseResult } from './lib/run-phase.js';
import { formatTable, verdict } from './lib/table.js';

const MEASURE_MS = Number(process.env.BENCH_MEASURE_S ?? 6) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1.5) * 1000;
const FLEETS = (process.env.BENCH_FLEETS ?? '1,100,1000').split(',').map(Number);
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'tcp,udp').split(',') as ('tcp' | 'udp')[];
const CRYPTO = (process.env.BENCH_CRYPTO ?? 'plain,aes').split(',').map((c) => c === 'aes');
const HALF_RATE = process.env.BENCH_HALF !== '0';
/** The receivers' encryption_password (16 characters: the AES-128 key itself). */
const KEY = 'VigilBench16key!';

interface Row extends PhaseResult {
  readonly transport: string;
  readonly devices: number;
  readonly aes: boolean;
  readonly mode: string;
}

function print(text: string): void {
  process.stdout.write(text + '\n');
}

function row(r: Row): (string | number)[] {
  return [
    r.transport, r.devices, r.aes ? 'AES' : 'plain', r.mode, r.connected, r.ackedPerS, r.p50.toFixed(2), r.p99.toFixed(2),
    r.max.toFixed(1), `${r.simCpu}%`, `${r.gatewayCpu}%`, `${r.otherCpu}%`, r.naks + r.duhs, r.timeouts, r.listenOverflows, r.udpRcvbufErrors,
  ];
}

const HEADER = [
  'transport', 'devices', 'crypto', 'mode', 'conn', 'acked/s', 'p50 ms', 'p99 ms', 'max ms', 'sim cpu', 'gw cpu', 'other cpu', 'nak+duh',
  'timeouts', 'listen ovf', 'udp drops',
];
/** Devices started per second: a steady-state measurement, not a reconnection storm. */
const CONNECT_RATE = Number(process.env.BENCH_CONNECT_RATE ?? 1000);

async function main(): Promise<void> {
  print(`ingest bench: ${pinSelf(0)}${PINNING ? ', gateway on CPU 1' : ''}; warm-up ${WARMUP_MS / 1000} s, measured ${MEASURE_MS / 1000} s per phase`);
  print(`load average before: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other work on this machine skews every figure)`);
  const tcpPort = await freePort();
  const udpPort = await freePort();
  const gateway = await startGatewayChild({
    receivers: { tcp: [{ id: 1, port: tcpPort, encryption_password: KEY }], udp: [{ id: 2, port: udpPort, encryption_password: KEY }] },
  });
  const rows: Row[] = [];
  try {
    for (const transport of TRANSPORTS) {
      for (const devices of FLEETS) {
        for (const aes of CRYPTO) {
          const label = `${transport} ${devices} ${aes ? 'AES' : 'plain'} saturating`;
          const result = await runPhase(gateway, {
            label,
            warmupMs: WARMUP_MS,
            measureMs: MEASURE_MS,
            sim: {
              port: transport === 'tcp' ? tcpPort : udpPort, transport, devices, saturate: true, connectRate: CONNECT_RATE,
              accountBase: transport === 'tcp' ? '100000' : '200000', key: aes ? KEY : null, ackTimeoutMs: 5000,
            },
          });
          const r: Row = { ...result, transport, devices, aes, mode: 'saturate' };
          rows.push(r);
          print(formatTable(HEADER, [row(r)]).split('\n')[2]!);
          await sleep(500);
        }
      }
    }
    for (const transport of HALF_RATE ? TRANSPORTS : []) {
      for (const aes of CRYPTO) {
        const full = rows.find((r) => r.transport === transport && r.devices === 100 && r.aes === aes && r.mode === 'saturate');
        if (!full || full.ackedPerS === 0) continue;
        const rate = Math.round(full.ackedPerS / 2);
        const result = await runPhase(gateway, {
          label: `${transport} 100 ${aes ? 'AES' : 'plain'} half rate`,
          warmupMs: WARMUP_MS,
          measureMs: MEASURE_MS,
          sim: {
            port: transport === 'tcp' ? tcpPort : udpPort, transport, devices: 100, totalRate: rate, connectRate: CONNECT_RATE,
            accountBase: transport === 'tcp' ? '100000' : '200000', key: aes ? KEY : null, ackTimeoutMs: 5000,
          },
        });
        const r: Row = { ...result, transport, devices: 100, aes, mode: `paced ${rate}/s` };
        rows.push(r);
        print(formatTable(HEADER, [row(r)]).split('\n')[2]!);
        await sleep(500);
      }
    }
  } finally {
    await gateway.stop();
  }
  print('\n' + formatTable(HEADER, rows.map(row)));
  const find = (aes: boolean, mode: (m: string) => boolean): Row | undefined =>
    rows.find((r) => r.transport === 'tcp' && r.devices === 100 && r.aes === aes && mode(r.mode));
  const plain = find(false, (m) => m === 'saturate');
  const aes = find(true, (m) => m === 'saturate');
  const half = find(false, (m) => m.startsWith('paced'));
  const halfAes = find(true, (m) => m.startsWith('paced'));
  print('\ntargets (TCP, 100 devices):');
  if (plain) print(`  plain  >= 25000 events/s: ${plain.ackedPerS} ${verdict(plain.ackedPerS >= 25_000)}`);
  if (aes) print(`  AES    >= 15000 events/s: ${aes.ackedPerS} ${verdict(aes.ackedPerS >= 15_000)}`);
  if (half) print(`  plain  ACK p99 < 20 ms at half rate: ${half.p99.toFixed(2)} ms ${verdict(half.p99 < 20)}`);
  if (halfAes) print(`  AES    ACK p99 < 20 ms at half rate: ${halfAes.p99.toFixed(2)} ms ${verdict(halfAes.p99 < 20)}`);
  print('  (sim cpu near 100% means the simulator, not the gateway, set the pace; other cpu = the rest of the machine, noise)');
  print('  (listen ovf / udp drops: kernel drops during the phase, see bench/lib/kernel-counters.ts; they explain timeouts)');
  print(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`ingest bench failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exitCode = 1;
});
