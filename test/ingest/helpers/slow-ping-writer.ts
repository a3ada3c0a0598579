/**
 * The real journal writer thread, except that it stalls (blocks its own thread, as a commit stuck
 * in fsync would) for the number of milliseconds in the file `<db path>.stall` whenever a ping
 * arrives. Lets a test see an unanswered ping in the writer's liveness.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const marker = (workerData as { path: string }).path + '.stall';
const sleeper = new Int32Array(new SharedArrayBuffer(4));
// Registered before the real writer's listener, so it runs first for every message.
parentPort!.on('message', (request: { type: string }) => {
  if (request.type === 'ping' && existsSync(marker)) Atomics.wait(sleeper, 0, 0, Number(readFileSync(marker, 'utf8')));
});
await import('../../../src/writer/writer-thread.js');
