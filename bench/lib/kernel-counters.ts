/**
 * Linux network counters that explain lost or late messages on loopback (best effort; zeros when
 * /proc is not readable):
 *   listenOverflows  TcpExt ListenOverflows: handshakes dropped because a listener's accept queue
 *                    was full (the client then retransmits after 1 s, 2 s, 4 s ...);
 *   udpRcvbufErrors  Udp RcvbufErrors: datagrams dropped because a socket's receive buffer was full.
 *   busySeconds      /proc/stat: CPU time of every process; minus the gateway's and the bench's own,
 *                    what OTHER work took from the 2 cores while a phase was measured.
 * Counters are machine-wide: other work on the machine shows up too.
 */
import { readFileSync } from 'node:fs';

export interface KernelCounters {
  readonly listenOverflows: number;
  readonly udpRcvbufErrors: number;
  /** CPU seconds all processes used (user, nice, system, irq, softirq, steal), machine-wide. */
  readonly busySeconds: number;
}

function field(file: string, prefix: string, name: string): number {
  try {
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${prefix}:`));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const index = names.indexOf(name);
    return index < 0 ? 0 : Number(values[index] ?? 0);
  } catch {
    return 0;
  }
}

function busySeconds(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: everything but idle and iowait is work.
    const busy = cpu[0]! + cpu[1]! + cpu[2]! + cpu[5]! + cpu[6]! + (cpu[7] ?? 0);
    return busy / 100;
  } catch {
    return 0;
  }
}

export function readKernelCounters(): KernelCounters {
  return {
    listenOverflows: field('/proc/net/netstat', 'TcpExt', 'ListenOverflows'),
    udpRcvbufErrors: field('/proc/net/snmp', 'Udp', 'RcvbufErrors'),
    busySeconds: busySeconds(),
  };
}

export function counterDelta(before: KernelCounters, after: KernelCounters): KernelCounters {
  return {
    listenOverflows: after.listenOverflows - before.listenOverflows,
    udpRcvbufErrors: after.udpRcvbufErrors - before.udpRcvbufErrors,
    busySeconds: after.busySeconds - before.busySeconds,
  };
}
