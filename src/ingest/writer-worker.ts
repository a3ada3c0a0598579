/**
 * The journal writer thread (docs/receivers.md §Group commit): its own better-sqlite3 connection
 * to the store's file (WAL, synchronous=FULL, busy_timeout: openDatabase), one BatchWriter, one
 * batch at a time. The main thread parses and queues the next batch while this one commits.
 * The store has migrated the file before the first batch is sent here.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { describeError, isVigilError } from '../core/errors.js';
import { openDatabase, type Database } from '../store/database.js';
import { EventJournal } from '../store/event-journal.js';
import { ObjectsRepo } from '../store/objects-repo.js';
import { SessionsRepo } from '../store/sessions-repo.js';
import { BatchWriter, type IngestStore } from './batch-writer.js';
import { SeenLog } from './seen-log.js';
import type { WriterInit, WriterReply, WriterRequest } from './writer-messages.js';

const port = parentPort;
if (!port) throw new Error('writer-worker.js runs as a worker thread only');
const init = workerData as WriterInit;
const post = (reply: WriterReply): void => port.postMessage(reply);

let db: Database | null = null;
try {
  db = openDatabase(init.path);
} catch (err) {
  post({ type: 'fatal', error: describeError(err) });
  process.exit(1);
}
const open = db as Database;
const tx = open.transaction((fn: () => unknown) => fn());
const store: IngestStore = {
  events: new EventJournal(open),
  objects: new ObjectsRepo(open),
  sessions: new SessionsRepo(open),
  transaction: <T>(fn: () => T): T => tx.immediate(fn) as T,
};
const writer = new BatchWriter(store, new SeenLog(init.seenPersistMs));

port.on('message', (request: WriterRequest) => {
  if (request.type === 'write') {
    try {
      post({ type: 'done', seq: request.seq, result: writer.write(request.batch) });
    } catch (err) {
      post({ type: 'failed', seq: request.seq, error: describeError(err), code: isVigilError(err) ? err.code : 'STORE_FAILURE' });
    }
    return;
  }
  if (request.type === 'ping') {
    post({ type: 'pong', seq: request.seq });
    return;
  }
  // close: the last throttled sightings, then the connection (a clean close checkpoints the WAL).
  let error: string | null = null;
  try {
    writer.flushSeen();
  } catch (err) {
    error = describeError(err);
  }
  open.close();
  post({ type: 'closed', error });
  port.close();
});
post({ type: 'ready' });
