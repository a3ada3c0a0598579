/**
 * A journal writer thread that dies (process.exit inside the worker: only the thread ends) on
 * its first batch while the marker file named in workerData exists, deleting the marker; without
 * the marker it is the real writer. Lets a test kill the thread exactly with a batch in flight.
 */
import { existsSync, rmSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const marker = (workerData as { path: string }).path + '.die';
if (existsSync(marker)) {
  parentPort!.once('message', () => {
    rmSync(marker);
    process.exit(3);
  });
  parentPort!.postMessage({ type: 'ready' });
} else {
  await import('../../../src/writer/writer-thread.js');
}
