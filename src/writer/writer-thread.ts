/**
 * The writer thread: the ONLY writer of the store's file (docs/store.md §One writer). Its own
 * better-sqlite3 connection (WAL, synchronous=FULL: openDatabase) serves
 *   - the receivers' group-commit batches (BatchWriter, one batch at a time; the main thread
 *     parses and queues the next batch while this one commits), and
 *   - the typed write commands of the other threads (settings, tracker, internal events,
 *     retention, output cursors…), each on its own channel (command-channel.ts); those that
 *     arrive while the thread is busy commit together, one flush for all (command-group.ts).
 * One thread, one event loop: commands and batches never interleave inside a transaction.
 * The store has migrated the file before this thread starts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { describeError, isVigilError } from '../core/errors.js';
import { openDatabase, type Database } from '../store/database.js';
import { createRepos } from '../store/repos.js';
import { CommandClock, executeWrite } from '../store/write-commands.js';
import { serveWrites } from './command-channel.js';
import { BatchWriter, type IngestStore } from './batch-writer.js';
import { CommandGroup } from './command-group.js';
import { SIGHTINGS_FLUSHED_KEY, SeenLog } from './seen-log.js';
import {
  isWrite,
  packDone,
  unpackWrite,
  type WriterInit,
  type WriterReply,
  type WriterRequest,
} from './thread-messages.js';

const port = parentPort;
if (!port) throw new Error('writer-thread.js runs as a worker thread only');
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
const clock = new CommandClock();
const repos = createRepos(open, clock);
const tx = open.transaction((fn: () => unknown) => fn());
const store: IngestStore = {
  events: repos.events,
  objects: repos.objects,
  sessions: repos.sessions,
  transaction: <T>(fn: () => T): T => tx.immediate(fn) as T,
};
const writer = new BatchWriter(store, new SeenLog(init.seenPersistMs));
const endpoints = [init.endpoint];
const commands = new CommandGroup(open, (command) => executeWrite(open, repos, clock, command));
const serve = (endpoint: WriterInit['endpoint']): void =>
  serveWrites(endpoint, (command, answer) => commands.add(command, answer));
serve(init.endpoint);

/**
 * The sightings sweep when no batch carries it (a quiet site): armed while sightings are pending,
 * so each is stored at most one interval after it got here (src/writer/seen-log.ts). A failed
 * sweep leaves them pending and is tried again one interval later.
 */
let sweepTimer: ReturnType<typeof setTimeout> | null = null;
const armSweep = (): void => {
  const due = writer.seenDueInMs();
  if (sweepTimer !== null || due === null) return;
  sweepTimer = setTimeout(() => {
    sweepTimer = null;
    try {
      writer.sweepSeen();
    } catch {
      // Nothing to tell: the batches that follow meet the same store and report it; the sightings stay pending.
    }
    armSweep();
  }, due);
};

port.on('message', (request: WriterRequest) => {
  if (isWrite(request)) {
    const seq = request[0];
    try {
      post(packDone(seq, writer.write(unpackWrite(request))));
    } catch (err) {
      post({ type: 'failed', seq, error: describeError(err), code: isVigilError(err) ? err.code : 'STORE_FAILURE' });
    }
    armSweep();
    return;
  }
  if (request.type === 'endpoint') {
    endpoints.push(request.endpoint);
    serve(request.endpoint);
    return;
  }
  if (request.type === 'ping') {
    post({ type: 'pong', seq: request.seq });
    return;
  }
  // close: the last throttled sightings, with the mark that every sighting is stored (a restarted
  // tracker then needs no allowance for their lag, docs/supervision.md §Restart), planner
  // statistics, then the connection (a clean close checkpoints the WAL).
  if (sweepTimer !== null) clearTimeout(sweepTimer);
  sweepTimer = null;
  commands.flush();
  let error: string | null = null;
  try {
    writer.flushSeen(() => repos.meta.set(SIGHTINGS_FLUSHED_KEY, String(Date.now())));
    open.pragma('optimize');
  } catch (err) {
    error = describeError(err);
  }
  for (const endpoint of endpoints) endpoint.close();
  open.close();
  post({ type: 'closed', error });
  port.close();
});
post({ type: 'ready' });
