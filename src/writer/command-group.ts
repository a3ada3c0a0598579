/**
 * The write commands of the other threads (docs/store.md §One writer), committed together: every
 * command that reached the writer thread while it was busy (a journal batch's commit, the previous
 * commands' commit) runs in ONE transaction, each inside a savepoint of its own, and all of them are
 * answered after its one COMMIT (docs/writer.md §Slow storage). On an SD card a commit costs a flush
 * of 2-10 ms, whatever it holds; a storm that restores thousands of lost panels sends three commands
 * each (the supervision state, the connection state, the object_restored event), and one flush per
 * command kept the writer busy for a minute while the panels' journal batches, and their ACKs, waited.
 *
 * Each command keeps its own outcome: one that throws is rolled back to its savepoint and answered
 * with its error; the others commit. If SQLite ends the whole transaction (a full disk, an I/O
 * error), the commands run in it so far are answered with that error (nothing of them was stored)
 * and the rest go on in a new one. A COMMIT that fails answers every command of the group with its
 * error. A command alone, and the store's own (`probe`: a write rolled back; `checkpoint`), run
 * outside any group, exactly as one command always ran.
 */
import type { Database } from '../store/database.js';
import type { WriteCommand } from '../store/write-commands.js';

/** A command's outcome, as the channel answers it (command-channel.ts). */
export type CommandOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

interface Queued {
  readonly command: WriteCommand;
  readonly answer: (outcome: CommandOutcome) => void;
}

/** The group's SAVEPOINT name (better-sqlite3's own nested transactions use theirs inside it). */
const SAVEPOINT = 'vigil_command';

/** Commands that must run outside a transaction: the store's own (a probe opens its own, a checkpoint cannot run in one). */
function alone(command: WriteCommand): boolean {
  return command.repo === 'store';
}

export class CommandGroup {
  private readonly db: Database;
  private readonly execute: (command: WriteCommand) => unknown;
  private queue: Queued[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** Groups committed and the commands in them (tests read them). */
  readonly stats = { groups: 0, grouped: 0 };

  constructor(db: Database, execute: (command: WriteCommand) => unknown) {
    this.db = db;
    this.execute = execute;
  }

  /**
   * Queues a command; it runs at the end of this turn of the thread's event loop, with every other
   * command that arrived in it (the messages that waited while the thread was busy come in one turn).
   */
  add(command: WriteCommand, answer: (outcome: CommandOutcome) => void): void {
    this.queue.push({ command, answer });
    this.scheduled ??= setImmediate(this.run);
  }

  /** Runs what is queued now (before the thread closes its connection). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.run();
  }

  private readonly run = (): void => {
    this.scheduled = null;
    const queued = this.queue;
    this.queue = [];
    let i = 0;
    while (i < queued.length) {
      let end = i;
      while (end < queued.length && !alone(queued[end]!.command)) end++;
      if (end - i >= 2) {
        this.commitGroup(queued.slice(i, end));
        i = end;
      } else {
        this.runAlone(queued[i]!);
        i++;
      }
    }
  };

  private runAlone(q: Queued): void {
    let outcome: CommandOutcome;
    try {
      outcome = { ok: true, value: this.execute(q.command) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    q.answer(outcome);
  }

  private commitGroup(group: readonly Queued[]): void {
    const db = this.db;
    const outcomes: CommandOutcome[] = [];
    /** Index of the first command of the transaction in progress. */
    let first = 0;
    const begin = (): boolean => {
      try {
        db.exec('BEGIN IMMEDIATE');
        return true;
      } catch (error) {
        // The write lock is out of reach (another connection held it past busy_timeout): every
        // command left fails as it would have alone.
        for (let k = outcomes.length; k < group.length; k++) outcomes.push({ ok: false, error });
        return false;
      }
    };
    if (!begin()) {
      this.answer(group, outcomes);
      return;
    }
    for (let k = 0; k < group.length; k++) {
      db.exec(`SAVEPOINT ${SAVEPOINT}`);
      try {
        outcomes.push({ ok: true, value: this.execute(group[k]!.command) });
        db.exec(`RELEASE ${SAVEPOINT}`);
      } catch (error) {
        outcomes.push({ ok: false, error });
        if (db.inTransaction) {
          db.exec(`ROLLBACK TO ${SAVEPOINT}`);
          db.exec(`RELEASE ${SAVEPOINT}`);
        } else {
          // SQLite rolled the whole transaction back: what ran in it is not stored either.
          for (let j = first; j < k; j++) if (outcomes[j]!.ok) outcomes[j] = { ok: false, error };
          first = k + 1;
          if (k + 1 < group.length && !begin()) {
            this.answer(group, outcomes);
            return;
          }
        }
      }
    }
    if (db.inTransaction) {
      try {
        db.exec('COMMIT');
        this.stats.groups++;
        this.stats.grouped += group.length - first;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        for (let j = first; j < group.length; j++) if (outcomes[j]!.ok) outcomes[j] = { ok: false, error };
      }
    }
    this.answer(group, outcomes);
  }

  private answer(group: readonly Queued[], outcomes: readonly CommandOutcome[]): void {
    for (let k = 0; k < group.length; k++) group[k]!.answer(outcomes[k]!);
  }
}
