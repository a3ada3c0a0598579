/**
 * Where a gateway's memory is, read from outside the process (pure parsers; the soak bench reads
 * the files and feeds them here):
 * - `/proc/<pid>/smaps` split into V8's heap pages, other anonymous memory (malloc arenas, SQLite's
 *   page caches, Buffers' backing stores, thread stacks), the brk heap, and file-backed pages;
 * - `node --trace-gc` lines: the live heap of each isolate (the main thread's, each worker
 *   thread's) right after a full mark-compact, the figure that grows when something leaks, and the
 *   heap V8 has reserved for it, which grows with the allocation rate and is not a leak.
 */

export interface MemoryClasses {
  /** Anonymous mappings V8 placed itself: its heap pages and large objects (KiB). */
  readonly v8KiB: number;
  /** Other anonymous mappings: malloc arenas, mmapped allocations, thread stacks (KiB). */
  readonly nativeKiB: number;
  /** The brk heap, the main thread's malloc arena (KiB). */
  readonly brkKiB: number;
  /** File-backed pages: the node binary, libraries, the WAL index (KiB). */
  readonly fileKiB: number;
}

/**
 * V8 on x86-64 (and arm64) asks mmap for its pages at random hints below 2^46
 * (kAllocationRandomAddressMax, src/base/platform/platform-posix.cc), while glibc's arenas, thread
 * stacks and libraries come from the top of the 47-bit space down (0x7f…): the address tells them
 * apart without help from inside the process.
 */
const V8_ADDRESS_LIMIT = 2 ** 46;

const MAPPING = /^([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/;
const RSS = /^Rss:\s+(\d+) kB/;

export function memoryClasses(smaps: string): MemoryClasses {
  let v8KiB = 0;
  let nativeKiB = 0;
  let brkKiB = 0;
  let fileKiB = 0;
  let start = 0;
  let name = '';
  for (const line of smaps.split('\n')) {
    const mapping = MAPPING.exec(line);
    if (mapping) {
      start = parseInt(mapping[1]!, 16);
      name = mapping[2]!;
      continue;
    }
    const rss = RSS.exec(line);
    if (!rss) continue;
    const kib = Number(rss[1]);
    if (name === '[heap]') brkKiB += kib;
    else if (name.startsWith('/')) fileKiB += kib;
    else if (name === '' && start < V8_ADDRESS_LIMIT) v8KiB += kib;
    else nativeKiB += kib;
  }
  return { v8KiB, nativeKiB, brkKiB, fileKiB };
}

export interface FullGc {
  /** The isolate's address as node prints it: one per thread (main, journal writer, output worker). */
  readonly isolate: string;
  /** Milliseconds since the isolate started. */
  readonly atMs: number;
  /** Live heap after the collection, MiB (V8 prints "MB" for 2^20 bytes). */
  readonly liveMiB: number;
  /** Heap V8 has reserved after it, MiB. */
  readonly reservedMiB: number;
}

/**
 * One `--trace-gc` line of a full collection (V8 11: "Mark-Compact", with or without "(reduce)"),
 * or null for anything else (scavenges, the gateway's own output):
 *   [27116:0x25a6e490]   170 ms: Mark-Compact 46.1 (78.5) -> 22.6 (56.4) MB, 1.01 / 0.00 ms  (...
 */
const FULL_GC =
  /^\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: Mark-Compact(?: \(reduce\))? [\d.]+ \([\d.]+\) -> ([\d.]+) \(([\d.]+)\) MB/;

export function parseFullGc(line: string): FullGc | null {
  const match = FULL_GC.exec(line);
  if (!match) return null;
  return { isolate: match[1]!, atMs: Number(match[2]), liveMiB: Number(match[3]), reservedMiB: Number(match[4]) };
}

const ANY_GC = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: /;

/**
 * The isolate of any `--trace-gc` line (scavenges too), or null: the first isolate to collect is
 * the main thread's, which loads every module before a worker starts.
 */
export function gcIsolate(line: string): string | null {
  return ANY_GC.exec(line)?.[1] ?? null;
}
