/**
 * The local store as a Service: opens the SQLite file, migrates it, hands out repositories,
 * and reports its health ('store' / kind 'store') to the registry the API, LEDs and watchdog read.
 *
 * Reads are synchronous on this store's connection (`store.objects.get(id)`); every write after
 * start() is an explicit, awaited command to the one writer (`await store.write.meta.set(k, v)`,
 * write-view.ts, docs/store.md §One writer): the writer thread when one is given, else a
 * LocalWriter on this connection, so the protocol is the same either way.
 */
import { VigilError, describeError } from '../core/errors.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { HealthRegistry, ComponentState } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { openDatabase, type CheckpointMode, type CheckpointResult, type Database } from './database.js';
import { checkCompatible, latestVersion, migrate } from './migrations.js';
import { LiveSightings } from './live-sightings.js';
import { LocalWriter } from './local-writer.js';
import { createRepos, type Repos } from './repos.js';
import { TokenEpochs, readEpochRows } from './token-epochs.js';
import { RevokedTokens } from './revoked-tokens-repo.js';
import { storeError } from './sql.js';
import type { WriteCommand, WriteResult } from './write-commands.js';
import { writeView, type ReadRepo, type WriteView } from './write-view.js';

export type { CheckpointMode } from './database.js';

/**
 * The single writer of the file (docs/store.md §One writer): in the gateway, the writer thread
 * (src/writer/writer-proxy.ts). Started once the file is migrated; every write of this store is
 * then a command to it, and this store's own connection is query-only.
 */
export interface StoreWriter {
  start(): Promise<void>;
  /**
   * Resolves with the command's result once the writer ran it; rejects with its VigilError
   * (STORE_FAILURE when it does not answer within `timeoutMs`, default the writer's own).
   */
  send<C extends WriteCommand>(command: C, timeoutMs?: number): Promise<WriteResult<C>>;
  /** Drains, writes what it still holds, runs PRAGMA optimize and closes its connection. */
  close(): Promise<void>;
}

export interface StoreOptions {
  readonly clock?: Clock;
  /**
   * Open the file read-only: no migration, every write fails (inspection tools; tests that need
   * real write failures, since file modes do not stop root).
   */
  readonly readonly?: boolean;
  /** The single writer; without it (tests, tools) a LocalWriter runs the commands on this store's connection. */
  readonly writer?: StoreWriter;
}

/** The write probe must not hold the API up for the full busy timeout. */
const PROBE_BUSY_TIMEOUT_MS = 250;
/** How long the probe waits for the writer thread itself (a commit in progress is milliseconds). */
const PROBE_ANSWER_TIMEOUT_MS = 2000;
const HEALTH_NAME = 'store';

export class Store implements Service {
  readonly name = 'store';
  /** The SQLite file (the journal writer thread opens its own connection to it). */
  readonly path: string;
  private readonly logger: Logger;
  private readonly health: HealthRegistry | undefined;
  private readonly clock: Clock;
  private readonly readonly: boolean;
  private readonly writer: StoreWriter | null;
  /** The writer when no thread is given: the same commands on this connection. */
  private local: LocalWriter | null = null;
  private db: Database | null = null;
  private repos: Repos | null = null;
  /** `store.write.<repo>.<method>(...)`: every write, explicit and awaited (write-view.ts). */
  readonly write: WriteView;
  private writeFailure: string | null = null;
  private readonly stopHooks = new Set<() => Promise<void>>();
  /** In memory, so token checks work while the store is closed or failing (token-epochs.ts). */
  readonly tokenEpochs = new TokenEpochs();
  /** Tokens ended by logout, mirrored in memory for the same reason (revoked-tokens-repo.ts). */
  readonly revokedTokens = new RevokedTokens();
  /**
   * What the ingest heard, ahead of the throttled stored sightings; fed from the bus by the
   * composition root (`object-seen`), shown by every objects read of this store.
   */
  readonly sightings = new LiveSightings();

  constructor(path: string, logger: Logger, health?: HealthRegistry, options: StoreOptions = {}) {
    this.path = path;
    this.logger = logger;
    this.health = health;
    this.clock = options.clock ?? systemClock;
    this.readonly = options.readonly === true;
    this.writer = this.readonly ? null : (options.writer ?? null);
    const view = writeView((command) => this.send(command), this.clock);
    this.write = {
      ...view,
      settings: {
        // The in-memory token epochs follow the save once it committed.
        save: async (document) => {
          const rows = await view.settings.save(document);
          this.tokenEpochs.replace(rows);
          return rows;
        },
      },
    };
  }

  async start(): Promise<void> {
    if (this.db) return;
    this.report('starting', null);
    let db: Database | undefined;
    try {
      db = openDatabase(this.path, { readonly: this.readonly });
      const version = this.readonly ? this.checkReadonlyVersion(db) : migrate(db, this.logger).to;
      const repos = createRepos(db, this.clock, this.sightings);
      if (!this.readonly) {
        // Nothing is connected yet: every session still open was cut by the previous run's end.
        const closed = repos.sessions.closeDangling(this.clock.now());
        if (closed > 0) this.logger.info('closed sessions left open by the previous run', { count: closed });
      }
      if (this.writer) {
        // From here on the writer thread is the only writer: this connection only reads.
        await this.writer.start();
        db.pragma('query_only = ON');
      } else {
        this.local = new LocalWriter(db);
      }
      this.tokenEpochs.replace(readEpochRows(db));
      this.revokedTokens.replace(repos.revokedTokens.live());
      this.db = db;
      this.repos = repos;
      this.writeFailure = null;
      this.health?.setMetrics(HEALTH_NAME, { schema_version: version });
      this.report(this.readonly ? 'degraded' : 'ok', this.readonly ? 'opened read-only' : null);
      this.logger.info('store open', { path: this.path, schema_version: version, readonly: this.readonly });
    } catch (err) {
      db?.close();
      const error = storeError(err, `cannot start store ${this.path}`);
      this.report('failed', error.message);
      this.logger.error('store failed to start', { path: this.path, error: error.message });
      throw error;
    }
  }

  /**
   * Ends a token before its expiry (logout). Recorded in the file so a restart keeps it; when the
   * file cannot take it, the token stays revoked in memory for this run and the failure is thrown.
   */
  async revokeToken(jti: string, userId: number | null, expiresAt: number): Promise<void> {
    this.revokedTokens.add(jti, expiresAt);
    const result = await this.write.revokedTokens.revoke(jti, userId, expiresAt);
    this.revokedTokens.replace(result.rows);
    if (result.epochs) this.tokenEpochs.replace(result.epochs);
  }

  /** A command to the one writer; rejects (never throws) while the store is closed. */
  private send<C extends WriteCommand>(command: C, timeoutMs?: number): Promise<WriteResult<C>> {
    if (!this.repos) return Promise.reject(new VigilError('STORE_UNAVAILABLE', `store ${this.path} is not open`));
    if (this.writer) return this.writer.send(command, timeoutMs);
    return (this.local as LocalWriter).send(command);
  }

  /**
   * Runs `hook` at the start of every stop(), while the file is still open: the journal writer
   * thread drains its last batch and closes its own connection first. Returns the unregister.
   */
  onStop(hook: () => Promise<void>): () => void {
    this.stopHooks.add(hook);
    return () => this.stopHooks.delete(hook);
  }

  async stop(): Promise<void> {
    for (const hook of [...this.stopHooks]) {
      try {
        await hook();
      } catch (err) {
        this.logger.error('stop hook failed', { error: describeError(err) });
      }
    }
    const db = this.db;
    this.db = null;
    this.repos = null;
    this.local?.close();
    this.local = null;
    if (!db) return;
    if (this.writer) {
      try {
        await this.writer.close();
      } catch (err) {
        this.logger.error('the database writer did not close cleanly', { error: describeError(err) });
      }
    }
    try {
      // Lets SQLite refresh planner statistics where it judges them stale; cheap at close.
      if (!this.readonly && !this.writer) db.pragma('optimize');
    } catch (err) {
      this.logger.warn('PRAGMA optimize failed', { error: describeError(err) });
    }
    db.close();
    this.report('stopped', null);
    this.logger.info('store closed', { path: this.path });
  }

  get settings(): ReadRepo<'settings'> {
    return this.open().settings;
  }
  get grants(): ReadRepo<'grants'> {
    return this.open().grants;
  }
  get objects(): ReadRepo<'objects'> {
    return this.open().objects;
  }
  get overrides(): ReadRepo<'overrides'> {
    return this.open().overrides;
  }
  get events(): ReadRepo<'events'> {
    return this.open().events;
  }
  get cursors(): ReadRepo<'cursors'> {
    return this.open().cursors;
  }
  get meta(): ReadRepo<'meta'> {
    return this.open().meta;
  }
  get sessions(): ReadRepo<'sessions'> {
    return this.open().sessions;
  }
  get deviceKeys(): ReadRepo<'deviceKeys'> {
    return this.open().deviceKeys;
  }

  /**
   * A cheap real write (inside a transaction that is rolled back). False, with health
   * 'failed' and the reason, when the store is closed, read-only, locked by another process or
   * otherwise refuses writes; the oid-override endpoint answers 503 `Database is not ready`.
   */
  async isWritable(): Promise<boolean> {
    const db = this.db;
    if (!db?.open) return false;
    if (db.inTransaction) return true; // a write is under way on this very connection
    let failure: string | null;
    try {
      failure = await this.send(
        { repo: 'store', method: 'probe', args: [this.clock.now(), PROBE_BUSY_TIMEOUT_MS] },
        PROBE_ANSWER_TIMEOUT_MS,
      );
    } catch (err) {
      failure = describeError(err);
    }
    // The store may have stopped meanwhile: a closed store says nothing about the file.
    if (this.db === db) this.noteWritability(failure);
    return failure === null;
  }

  /**
   * Bytes of the file's free pages (SQLite's freelist): room that rows deleted by retention left,
   * which new rows take before the file grows (docs/store.md §Free space). 0 while closed.
   */
  freePageBytes(): number {
    const db = this.db;
    if (!db?.open) return 0;
    try {
      return Number(db.pragma('freelist_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
    } catch (err) {
      throw storeError(err, 'free pages');
    }
  }

  /** Copies the WAL into the main file (by the one writer); TRUNCATE also shrinks the WAL to zero bytes. */
  checkpoint(mode: CheckpointMode = 'TRUNCATE'): Promise<CheckpointResult> {
    return this.send({ repo: 'store', method: 'checkpoint', args: [mode] });
  }

  private noteWritability(failure: string | null): void {
    if (failure === this.writeFailure) return;
    this.writeFailure = failure;
    if (failure) {
      this.logger.error('store is not writable', { path: this.path, error: failure });
      this.report('failed', `not writable: ${failure}`);
    } else {
      this.logger.info('store is writable again', { path: this.path });
      this.report(this.readonly ? 'degraded' : 'ok', this.readonly ? 'opened read-only' : null);
    }
  }

  private checkReadonlyVersion(db: Database): number {
    const current = checkCompatible(db);
    const latest = latestVersion();
    if (current < latest) {
      throw new VigilError(
        'STORE_FAILURE',
        `database schema version ${current} needs migrating to ${latest}, which a read-only store cannot do`,
      );
    }
    return current;
  }

  private open(): Repos {
    if (!this.repos) throw new VigilError('STORE_UNAVAILABLE', `store ${this.path} is not open`);
    return this.repos;
  }

  private report(state: ComponentState, detail: string | null): void {
    this.health?.report(HEALTH_NAME, 'store', state, detail);
  }
}
