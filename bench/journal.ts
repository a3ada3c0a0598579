/**
 * Journal append throughput with synchronous=FULL on a temp file: events/s and commits/s for
 * batches of 1, 10 and 100 (a receiver's group commit). Each size runs at most ~3 s.
 *
 *   node dist/bench/journal.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/core/logger.js';
import { Store } from '../src/store/store.js';
import type { NewEvent } from '../src/store/types.js';

const SECONDS_PER_SIZE = 3;
const MAX_EVENTS_PER_SIZE = 2_000_000;

function event(i: number): NewEvent {
  return {
    receivedAt: Date.now(),
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '192.0.2.10:40000',
    account: String(1000 + (i % 500)).padStart(6, '0'),
    sequence: String(i % 10000).padStart(4, '0'),
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: 'BA',
    groupNo: '01',
    zoneNo: '003',
    raw: Buffer.from(`"SIA-DCS"${String(i % 10000).padStart(4, '0')}R1L1#001234[#001234|Nri01/BA003]`),
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const store = new Store(join(dir, 'bench.db'), silentLogger);
  try {
    await store.start();
    process.stdout.write(`journal append, synchronous=FULL, WAL, file in ${dir}\n`);
    for (const size of [1, 10, 100]) {
      let events = 0;
      let commits = 0;
      const started = process.hrtime.bigint();
      const deadline = started + BigInt(SECONDS_PER_SIZE * 1e9);
      while (process.hrtime.bigint() < deadline && events < MAX_EVENTS_PER_SIZE) {
        store.events.append(Array.from({ length: size }, (_, i) => event(events + i)));
        events += size;
        commits++;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      process.stdout.write(
        `batch ${String(size).padStart(3)}: ${Math.round(events / seconds).toString().padStart(8)} events/s, ` +
          `${Math.round(commits / seconds).toString().padStart(6)} commits/s (${events} events in ${seconds.toFixed(2)} s)\n`,
      );
    }
  } finally {
    await store.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
