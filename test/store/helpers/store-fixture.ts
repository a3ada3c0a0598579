/**
 * A started Store on a real SQLite file in a fresh temp dir, with a hand-moved clock; with
 * startStoreWithWriter, run as the gateway runs it: its writer thread owns the file.
 */
import { join } from 'node:path';
import { ManualClock } from '../../../src/core/clock.js';
import { HealthRegistry } from '../../../src/core/health.js';
import { createLogger, type Logger } from '../../../src/core/logger.js';
import { Store, type StoreOptions } from '../../../src/store/store.js';
import type { NewEvent } from '../../../src/core/event-row.js';
import { WriterProxy } from '../../../src/writer/writer-proxy.js';
import { tempDir } from '../../helpers/temp-dir.js';

export interface StoreFixture {
  readonly store: Store;
  readonly path: string;
  readonly dir: string;
  readonly clock: ManualClock;
  readonly health: HealthRegistry;
  readonly logs: string[];
  readonly logger: Logger;
  /** A second Store on the same file (after the first was stopped), same clock and health. */
  reopen(options?: StoreOptions): Promise<Store>;
  cleanup(): Promise<void>;
}

export interface WriterStoreFixture extends StoreFixture {
  /** The writer thread of `store`: the journal writer an EventIngest takes. */
  readonly writer: WriterProxy;
}

/** The store with its own writer thread (src/writer/store-with-writer.ts); cleanup stops both. */
export async function startStoreWithWriter(): Promise<WriterStoreFixture> {
  let writer: WriterProxy | null = null;
  const fx = await startStore({}, (path, logger) => {
    writer = new WriterProxy({ path, logger: logger.child('writer') });
    return writer;
  });
  return { ...fx, writer: writer! };
}

export async function startStore(
  options: StoreOptions = {},
  writerFor?: (path: string, logger: Logger) => WriterProxy,
): Promise<StoreFixture> {
  const dir = tempDir('vigil-store-');
  const path = join(dir.path, 'data', 'vigil.db');
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const health = new HealthRegistry(() => clock.now());
  const logs: string[] = [];
  const logger = createLogger('store', (line) => logs.push(line), 'debug');
  const opened: Store[] = [];
  const open = async (extra: StoreOptions = {}): Promise<Store> => {
    const writer = writerFor?.(path, logger);
    const store = new Store(path, logger, health, { clock, ...options, ...extra, ...(writer && { writer }) });
    opened.push(store);
    await store.start();
    return store;
  };
  const store = await open();
  return {
    store,
    path,
    dir: dir.path,
    clock,
    health,
    logs,
    logger,
    reopen: open,
    cleanup: async () => {
      for (const s of opened) await s.stop();
      dir.remove();
    },
  };
}

/** A plausible SIA-DCS event; override what the test is about. */
export function sampleEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    receivedAt: Date.UTC(2026, 0, 1, 12, 0, 0),
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '127.0.0.1:40000',
    account: '001234',
    dc09Receiver: 'R1',
    dc09Line: 'L1',
    sequence: '0001',
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: 'BA',
    groupNo: '01',
    zoneNo: '003',
    text: null,
    raw: Buffer.from('"SIA-DCS"0001R1L1#001234[#001234|Nri01/BA003]'),
    ...overrides,
  };
}
