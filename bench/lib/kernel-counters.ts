/**
 * Linux network counters that explain lost or late messages on loopback (best effort; zeros when
 * /proc is not readable):
 *   listenOverflows  TcpExt ListenOverflows: handshakes dropped because a listener's accept queue
 *                    was full (the client then retransmits after 1 s, 2 s, 4 s ...);
 *   udpRcvbufErrors  Udp RcvbufErrors: datagrams dropped because a socket's receive buffer was full.
 * Counters are machine-wide: other work on the machine shows up too.
 */
import { readFileSync } from 'node:fs';

export interface KernelCounters {
  readonly listenOverflows: number;
  readonly udpRcvbufErrors: number;
}

function field(file: string, prefix: string, name: string): number {
  try {
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith(`${prefix}:`));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const index = names.indexOf(name);
    return index < 0 ? 0 : Number(values[index] ?? 0);
  } catch {
    return 0;
  }
}

export function readKernelCounters(): KernelCounters {
  return {
    listenOverflows: field('/proc/net/netstat', 'TcpExt', 'ListenOverflows'),
    udpRcvbufErrors: field('/proc/net/snmp', 'Udp', 'RcvbufErrors'),
  };
}

export function counterDelta(before: KernelCounters, after: KernelCounters): KernelCounters {
  return {
    listenOverflows: after.listenOverflows - before.listenOverflows,
    udpRcvbufErrors: after.udpRcvbufErrors - before.udpRcvbufErrors,
  };
}
