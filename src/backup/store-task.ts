/**
 * The backup's long store work off the main thread (docs/backup.md): the snapshot of a backup and the
 * check of a restored store (integrity_check reads every page) take seconds to minutes on a Pi with a
 * large journal. On the gateway's main thread they would stall every receiver and starve the watchdog
 * (WatchdogSec=20 kills the gateway), so each runs in a short-lived worker thread (store-worker.ts).
 */
import { Worker } from 'node:worker_threads';
import { VigilError, type ErrorCode } from '../core/errors.js';
import type { BackupHeader } from './backup-format.js';
import type { Snapshot, SnapshotRequest } from './store-snapshot.js';

export type StoreTask =
  | ({ readonly task: 'snapshot' } & SnapshotRequest)
  | { readonly task: 'check'; readonly path: string; readonly header: BackupHeader; readonly newIdentity: boolean };

export type StoreTaskReply =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly code: ErrorCode | null; readonly message: string };

function run(task: StoreTask): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./store-worker.js', import.meta.url), { workerData: task });
    let settled = false;
    worker.once('message', (reply: StoreTaskReply) => {
      settled = true;
      if (reply.ok) resolve(reply.value);
      // A VigilError keeps its code across the thread (BAD_BACKUP for a damaged store).
      else reject(reply.code ? new VigilError(reply.code, reply.message) : new Error(reply.message));
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the store thread ended (exit code ${code}) without an answer`));
    });
  });
}

/** takeSnapshot (store-snapshot.ts) in a worker thread. */
export async function snapshotOffThread(request: SnapshotRequest): Promise<Snapshot> {
  return (await run({ task: 'snapshot', ...request })) as Snapshot;
}

/** checkStore (stage-restore.ts) in a worker thread; rejects with its VigilError. */
export async function checkStoreOffThread(path: string, header: BackupHeader, newIdentity: boolean): Promise<void> {
  await run({ task: 'check', path, header, newIdentity });
}
