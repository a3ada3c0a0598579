/**
 * A started Store with its writer thread, as the gateway runs it (docs/writer.md): the file is made
 * by a first store, which stops; the second opens it with a WriterProxy, so every write after start
 * is a command to that thread. For tests that run threads which write (the output worker).
 */
import { WriterProxy } from '../../../src/writer/writer-proxy.js';
import { startStore, type StoreFixture } from './store-fixture.js';

export interface WriterStoreFixture extends StoreFixture {
  readonly writer: WriterProxy;
}

export async function startWriterStore(): Promise<WriterStoreFixture> {
  const first = await startStore();
  await first.store.stop();
  const writer = new WriterProxy({ path: first.path, logger: first.logger });
  const store = await first.reopen({ writer });
  return { ...first, store, writer };
}
