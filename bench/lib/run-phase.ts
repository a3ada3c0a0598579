/**
 * One measured load phase: start a simulator fleet, wait until it is connected, let it warm up,
 * then measure ACKed events/s and ACK latency over a steady window (connection set-up and the
 * first objects' registration excluded), with the CPU both processes used meanwhile.
 */
import { loadavg } from 'node:os';
import { resolveSimOptions, type SimOptionsInput } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { commitFigures, readCommitCounters, type CommitFigures } from './commit-figures.js';
import { sleep, type GatewayChild } from './gateway-child.js';
import { counterDelta, readKernelCounters } from './kernel-counters.js';
import { cpuMeter } from './table.js';

export interface PhaseSpec {
  readonly label: string;
  readonly sim: Omit<SimOptionsInput, 'durationMs'>;
  readonly warmupMs: number;
  readonly measureMs: number;
  /** Bound on waiting for the fleet to connect. */
  readonly connectTimeoutMs?: number;
}

export interface PhaseResult {
  readonly label: string;
  readonly connected: number;
  readonly ackedPerS: number;
  readonly sentPerS: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** % of one core over the measured window. */
  readonly simCpu: number;
  readonly gatewayCpu: number;
  readonly naks: number;
  readonly duhs: number;
  readonly timeouts: number;
  readonly failed: number;
  /** Machine-wide kernel drops during the whole phase, connection set-up included (kernel-counters.ts). */
  readonly listenOverflows: number;
  readonly udpRcvbufErrors: number;
  /** % of one core used by other processes during the measured window: high means noisy figures. */
  readonly otherCpu: number;
  /** Gateway CPU (all threads) per ACKed event, µs. */
  readonly cpuUsPerEvent: number;
  /** Bytes the gateway wrote to storage per ACKed event (/proc/<pid>/io write_bytes). */
  readonly bytesPerEvent: number;
  /** The machine's 1-minute load average at the end of the measured window. */
  readonly load: number;
  /** The gateway's group commits over the window (GET /metrics); null for a reference receiver. */
  readonly commits: CommitFigures | null;
}

export async function runPhase(gateway: GatewayChild, spec: PhaseSpec): Promise<PhaseResult> {
  // The run is ended by stop() below; the duration only bounds it if something hangs.
  const options = resolveSimOptions({ ...spec.sim, durationMs: spec.warmupMs + spec.measureMs + 120_000, drainMs: 0 });
  const sim = new Simulator(options);
  const kernelBefore = readKernelCounters();
  sim.start();
  try {
    const devices = options.devices;
    const connectTimeout = spec.connectTimeoutMs ?? 30_000;
    await sim.waitConnected(devices, connectTimeout);
    if (options.transport === 'tcp' && options.link.hello) {
      // Connected on our side is not accepted on the gateway's: the WELCOME proves the session runs.
      const deadline = performance.now() + connectTimeout;
      // A reference receiver does not speak the device link: its DUH to the HELLO ends the wait too.
      const answered = (): number => sim.stats.welcomes + sim.stats.linkUnavailable;
      while (answered() < devices && performance.now() < deadline) await sleep(20);
    }
    await sleep(spec.warmupMs);
    const s = sim.stats;
    s.latency.reset();
    const before = {
      acked: s.eventsAcked,
      sent: s.eventsSent,
      naks: s.naks,
      duhs: s.duhs,
      timeouts: s.ackTimeouts,
      failed: s.eventsFailed,
    };
    const simCpu = cpuMeter();
    const gw0 = gateway.cpuSeconds();
    const io0 = gateway.writeBytes();
    const commits0 = await readCommitCounters(gateway);
    const machine0 = readKernelCounters().busySeconds;
    const t0 = performance.now();
    await sleep(spec.measureMs);
    const seconds = (performance.now() - t0) / 1000;
    const gw1 = gateway.cpuSeconds();
    const io1 = gateway.writeBytes();
    const commits1 = await readCommitCounters(gateway);
    const machine1 = readKernelCounters().busySeconds;
    const simPct = simCpu();
    const kernel = counterDelta(kernelBefore, readKernelCounters());
    const acked = s.eventsAcked - before.acked;
    const result: PhaseResult = {
      label: spec.label,
      connected: s.connected,
      ackedPerS: Math.round((s.eventsAcked - before.acked) / seconds),
      sentPerS: Math.round((s.eventsSent - before.sent) / seconds),
      p50: s.latency.percentile(50),
      p99: s.latency.percentile(99),
      max: s.latency.maxMs,
      simCpu: Math.round(simPct),
      gatewayCpu: Math.round(((gw1 - gw0) / seconds) * 100),
      naks: s.naks - before.naks,
      duhs: s.duhs - before.duhs,
      timeouts: s.ackTimeouts - before.timeouts,
      failed: s.eventsFailed - before.failed,
      listenOverflows: kernel.listenOverflows,
      udpRcvbufErrors: kernel.udpRcvbufErrors,
      cpuUsPerEvent: acked > 0 ? Math.round((((gw1 - gw0) * 1e6) / acked) * 10) / 10 : 0,
      bytesPerEvent: acked > 0 ? Math.round((io1 - io0) / acked) : 0,
      commits: commitFigures(commits0, commits1),
      load: Math.round(loadavg()[0]! * 10) / 10,
      otherCpu: Math.max(
        0,
        Math.round(((machine1 - machine0) / seconds) * 100 - simPct - ((gw1 - gw0) / seconds) * 100),
      ),
    };
    return result;
  } finally {
    await sim.stop();
  }
}
