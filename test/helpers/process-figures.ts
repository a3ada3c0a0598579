/**
 * A running process's resident memory and open descriptors, read from /proc (Linux), for tests that bound
 * what a gateway spends under load (test/e2e/siege.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set size in bytes (VmRSS); null when the process is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Open file descriptors; null when the process is gone. */
export function openDescriptors(pid: number): number | null {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return null;
  }
}

/** The soft limit of open files of the process. */
export function descriptorLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  if (!soft || !/^\d+$/.test(soft)) throw new Error(`no open-files limit for process ${pid}`);
  return Number(soft);
}

/** Nearest-rank percentile of `values` (0..100); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Milliseconds the process's threads have spent runnable but waiting for a CPU (the second field of
 * each thread's /proc/<pid>/task/<tid>/schedstat); null when the process is gone or the kernel keeps
 * no scheduler statistics. The difference over a run tells how much of its latency was the machine's.
 */
export function runQueueWaitMs(pid: number): number | null {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/);
      ns += Number(fields[1] ?? 0);
    }
    return Math.round(ns / 1e6);
  } catch {
    return null;
  }
}

/**
 * Datagrams the kernel dropped at the IPv4 UDP socket bound to `port` because its receive buffer was
 * full (the `drops` column of /proc/net/udp); null when no socket is bound there.
 */
export function udpSocketDrops(port: number): number | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/udp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(`:${hexPort}`)) return Number(fields[12]);
  }
  return null;
}
