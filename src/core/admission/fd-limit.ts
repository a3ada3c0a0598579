/**
 * How many TCP connections all receivers together may hold (docs/receivers.md §Connection budget):
 * the process's file-descriptor limit less a reserve for everything else the gateway opens. Node has
 * no getrlimit(); Linux shows the limits in force in /proc/self/limits (Node raises the soft limit
 * to the hard one at start-up, so the soft column is the one that counts).
 */
import { readFileSync } from 'node:fs';

/** Assumed when /proc/self/limits cannot be read or says "unlimited" is not a number: the kernel's usual soft default. */
export const FALLBACK_FD_LIMIT = 1024;
/**
 * File descriptors kept for everything that is not a receiver connection: the API listeners and
 * their clients, the SQLite files of every thread (database, -wal, -shm), outputs, serial ports and
 * the modem, the status output, MySQL sync, worker threads and libuv's own (epoll, eventfd, pipes).
 * 1,024, or a quarter of a smaller limit.
 */
export const FD_RESERVE = 1024;

/** The soft "Max open files" of /proc/self/limits text; null when absent or unlimited. */
export function parseOpenFilesLimit(text: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  if (!line) return null;
  const soft = line.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft !== undefined && /^\d+$/.test(soft) ? Number(soft) : null;
}

/** The process's open-files limit now (FALLBACK_FD_LIMIT when it cannot be read). */
export function readFdLimit(path = '/proc/self/limits'): number {
  try {
    return parseOpenFilesLimit(readFileSync(path, 'utf8')) ?? FALLBACK_FD_LIMIT;
  } catch {
    return FALLBACK_FD_LIMIT;
  }
}

/** Connections all TCP receivers may hold together under an fd limit: the limit less the reserve. */
export function connectionBudgetFor(fdLimit: number): number {
  const reserve = Math.min(FD_RESERVE, Math.floor(fdLimit / 4));
  return Math.max(1, fdLimit - reserve);
}
