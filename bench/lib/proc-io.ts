/** Figures of a process, or of one of its threads, from /proc. */
import { readFileSync } from 'node:fs';

/**
 * Bytes a process (all its threads: /proc/<pid>/io of the thread-group leader sums them) caused to
 * be written to storage (`write_bytes`: counted when pages are dirtied, so every WAL append and
 * checkpoint counts, socket writes do not). 0 when /proc is not readable.
 */
export function writeBytes(pid: number | 'self'): number {
  try {
    const match = /^write_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** utime and stime, in clock ticks (USER_HZ, 100 a second), from a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line. */
export function cpuTicks(stat: string): [user: number, sys: number] {
  // Fields 14 and 15 after the ")" that ends the command name (which may hold spaces).
  const fields = stat.split(') ')[1]!.split(' ');
  return [Number(fields[11]), Number(fields[12])];
}
