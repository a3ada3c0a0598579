/**
 * Bytes a process (all its threads: /proc/<pid>/io of the thread-group leader sums them) caused to
 * be written to storage (`write_bytes`: counted when pages are dirtied, so every WAL append and
 * checkpoint counts, socket writes do not). 0 when /proc is not readable.
 */
import { readFileSync } from 'node:fs';

export function writeBytes(pid: number | 'self'): number {
  try {
    const match = /^write_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
