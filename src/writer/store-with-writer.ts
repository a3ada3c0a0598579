/**
 * The store and its one writer, wired as the gateway runs them (docs/writer.md): Store.start()
 * migrates the file on its own connection, then starts the writer thread; from then on every
 * write is a command to that thread and the store's connection only reads. The gateway
 * (src/main.ts), the receiver test rigs and the benchmarks open the store this way, so all of
 * them run one topology.
 */
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import { Store, type StoreOptions } from '../store/store.js';
import { WriterProxy } from './writer-proxy.js';

export interface StoreWithWriter {
  readonly store: Store;
  /** Shared by the ingest (journal batches) and the store (every other write); Store.stop() closes it. */
  readonly writer: WriterProxy;
}

export function storeWithWriter(
  path: string,
  logger: Logger,
  health?: HealthRegistry,
  options: Omit<StoreOptions, 'writer' | 'readonly'> = {},
): StoreWithWriter {
  const writer = new WriterProxy({ path, logger: logger.child('writer') });
  const store = new Store(path, logger.child('store'), health, { ...options, writer });
  return { store, writer };
}
