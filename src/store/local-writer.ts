/**
 * The one writer of a store that runs no writer thread (unit tests, benchmarks of single parts,
 * read-only inspection): the same typed commands (write-commands.ts), executed by the same
 * executeWrite on the store's own connection, answered asynchronously like the thread answers
 * them. So a caller sees one protocol whichever writer the store has: a write resolves after it
 * ran, a read that must see it awaits it first, and a failure rejects with the same VigilError.
 *
 * Commands run in the order they were sent, each in a microtask of its own: never inside the
 * caller's synchronous code, and never interleaved with a transaction (better-sqlite3 runs those
 * synchronously to their end).
 */
import { VigilError } from '../core/errors.js';
import type { Database } from './database.js';
import { createRepos, type Repos } from './repos.js';
import { storeError } from './sql.js';
import { CommandClock, executeWrite, type WriteCommand, type WriteResult } from './write-commands.js';

export class LocalWriter {
  private readonly db: Database;
  private readonly clock = new CommandClock();
  private readonly repos: Repos;
  private closed = false;

  constructor(db: Database) {
    this.db = db;
    this.repos = createRepos(db, this.clock);
  }

  send<C extends WriteCommand>(command: C): Promise<WriteResult<C>> {
    return new Promise<WriteResult<C>>((resolve, reject) => {
      queueMicrotask(() => {
        if (this.closed) {
          reject(new VigilError('STORE_UNAVAILABLE', 'the database writer is not running'));
          return;
        }
        try {
          resolve(executeWrite(this.db, this.repos, this.clock, command) as WriteResult<C>);
        } catch (err) {
          reject(storeError(err, 'write'));
        }
      });
    });
  }

  /** Commands sent from now on are refused; the store closes the connection. */
  close(): void {
    this.closed = true;
  }
}
