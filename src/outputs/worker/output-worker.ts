/**
 * The output worker thread: runs every enabled output (an OutputRunner each) with its own SQLite connection to the
 * store file, query-only (the cursor writes are commands to the writer thread), so an output's journal reads and
 * message round trips never share the receivers' event loop (docs/outputs.md §Threads). A serial output's line
 * stays on the main thread and is relayed here (relayed-link.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../../core/clock.js';
import { describeError } from '../../core/errors.js';
import { stopAll, type Service } from '../../core/service.js';
import { openDatabase, type Database } from '../../store/database.js';
import { EventJournal } from '../../store/event-journal.js';
import { ObjectsRepo } from '../../store/objects-repo.js';
import { OidOverridesRepo } from '../../store/oid-overrides-repo.js';
import { OutputCursors } from '../../store/output-cursors.js';
import { writeView } from '../../store/write-view.js';
import { WriteClient } from '../../writer/command-channel.js';
import type { OutputSettings } from '../../settings/schema-outputs.js';
import { buildOutputs } from '../build-outputs.js';
import type { HostMessage, WorkerInit, WorkerMessage } from './messages.js';
import { RelayHealthRegistry, relayLogger } from './relay.js';
import { RelayedLinks } from './relayed-link.js';

const port = parentPort;
if (!port) throw new Error('output-worker must run as a worker thread');
const init = workerData as WorkerInit;
const post = (message: WorkerMessage): void => port.postMessage(message);
const logger = relayLogger(post, init.logLevel);
const wakeListeners = new Set<() => void>();
/** Serial outputs' lines: the main thread's (docs/outputs.md §Threads). */
const serialLines = new RelayedLinks(post);
let db: Database | null = null;
/** The cursor writes' way to the single writer (null endpoint until the writer runs). */
const writer = new WriteClient(init.endpoint ?? null);
let services: Service[] = [];
// biome-ignore lint/correctness/noUnusedVariables: read by `??=` below, so a second stop message does not stop twice
let stopping: Promise<void> | null = null;

async function start(): Promise<void> {
  try {
    db = openDatabase(init.dbPath);
    const clock = systemClock;
    // Only the writer thread writes the file: this connection reads, cursor moves are commands.
    db.pragma('query_only = ON');
    const store = {
      events: new EventJournal(db),
      cursors: new OutputCursors(db, clock),
      objects: new ObjectsRepo(db),
      overrides: new OidOverridesRepo(db, clock),
      write: { cursors: writeView((command) => writer.send(command), clock).cursors },
    };
    services = buildOutputs(init.outputs, {
      store,
      health: new RelayHealthRegistry(post),
      logger,
      clock,
      onEventStored: (listener) => {
        wakeListeners.add(listener);
        return () => wakeListeners.delete(listener);
      },
      onClientRefused: (refusal) => post({ type: 'client-refused', ...refusal }),
      ...(init.serial
        ? { comLink: (settings: OutputSettings) => serialLines.link(settings.id, `serial ${settings.identificator}`) }
        : {}),
      ...(init.timings ? { timings: init.timings } : {}),
      ...(init.instanceName !== undefined ? { instanceName: init.instanceName } : {}),
    });
  } catch (err) {
    db?.close();
    db = null;
    post({ type: 'start-failed', error: describeError(err) });
    return;
  }
  for (const service of services) {
    try {
      await service.start();
    } catch (err) {
      // Its health entry says why; the other outputs still run.
      logger.error('output failed to start', { service: service.name, error: describeError(err) });
    }
  }
  post({ type: 'started' });
}

async function stop(): Promise<void> {
  const failures = await stopAll(services);
  for (const err of failures) logger.error('output failed to stop', { error: describeError(err) });
  services = [];
  db?.close();
  db = null;
  post({ type: 'stopped' });
}

port.on('message', (message: HostMessage) => {
  if (message.type === 'wake') {
    for (const listener of wakeListeners) listener();
  } else if (message.type === 'stop') {
    stopping ??= stop();
  } else if (message.type === 'writer') {
    writer.replace(message.endpoint);
  } else {
    serialLines.receive(message);
  }
});

void start();
