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
