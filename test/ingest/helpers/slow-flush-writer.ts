/**
 * The real journal writer thread on storage whose flush is slow, as an SD card's is (2-10 ms): every
 * journal batch takes the number of milliseconds in the file `<db path>.flush-ms` longer (the thread
 * blocks, as it does in a commit's fsync), read once when the thread starts. Write commands are not
 * slowed. Lets a test see how the group commit fills each flush without the slowsync shim (which must
 * be preloaded into the process before it starts).
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const flushMs = Number(readFileSync(`${(workerData as { path: string }).path}.flush-ms`, 'utf8'));
const sleeper = new Int32Array(new SharedArrayBuffer(4));
// Registered before the real writer's listener, so it runs first for every message: a batch is an array.
parentPort!.on('message', (request: unknown) => {
  if (Array.isArray(request)) Atomics.wait(sleeper, 0, 0, flushMs);
});
await import('../../../src/writer/writer-thread.js');
