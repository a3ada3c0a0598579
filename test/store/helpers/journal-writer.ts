/**
 * Child process of the power-loss test: appends batches of events to the journal and, right
 * after each append() returns, reports the batch number on stdout (a synchronous write), then
 * goes on with the next batch until it is killed. Bounded in batches and time.
 *
 *   node journal-writer.js <db path> <batch size>
 */
import { writeSync } from 'node:fs';
import { silentLogger } from '../../../src/core/logger.js';
import { Store } from '../../../src/store/store.js';
import { sampleEvent } from './store-fixture.js';

const MAX_BATCHES = 100_000;
const MAX_MS = 20_000;

async function main(): Promise<void> {
  const [path, size] = process.argv.slice(2);
  if (!path || !size) throw new Error('usage: journal-writer <db path> <batch size>');
  const store = new Store(path, silentLogger);
  await store.start();
  const started = Date.now();
  for (let batch = 1; batch <= MAX_BATCHES && Date.now() - started < MAX_MS; batch++) {
    const events = Array.from({ length: Number(size) }, (_, i) =>
      sampleEvent({ text: `batch:${batch}`, sequence: String(i).padStart(4, '0') }),
    );
    await store.write.events.append(events);
    writeSync(1, `${batch}\n`);
  }
  await store.stop();
}

main().catch((err: unknown) => {
  writeSync(2, `${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
