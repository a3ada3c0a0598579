/** The worker thread of store-task.ts: one task, one answer, then it ends. */
import { parentPort, workerData } from 'node:worker_threads';
import { describeError, isVigilError } from '../core/errors.js';
import { checkStore } from './stage-restore.js';
import { takeSnapshot } from './store-snapshot.js';
import type { StoreTask, StoreTaskReply } from './store-task.js';

const port = parentPort;
if (!port) throw new Error('store-worker.js runs as a worker thread only');
const task = workerData as StoreTask;
let reply: StoreTaskReply;
try {
  if (task.task === 'snapshot') reply = { ok: true, value: takeSnapshot(task) };
  else {
    checkStore(task.path, task.header, task.newIdentity);
    reply = { ok: true, value: null };
  }
} catch (err) {
  reply = isVigilError(err)
    ? { ok: false, code: err.code, message: err.message }
    : { ok: false, code: null, message: describeError(err) };
}
port.postMessage(reply);
