/**
 * The MySQL sync adapter as a Service (settings `database`, docs/mysql-sync.md). SQLite stays the
 * source of truth; the mirror follows it in the background:
 * - never in the ingest's way: the sync runs on its own timer, reads SQLite in bounded batches
 *   and awaits MySQL asynchronously; receivers neither wait for it nor notice it;
 * - resumable: the events cursor is persisted in meta after each batch the mirror accepted;
 * - outage-proof: any MySQL error drops the connection; reconnects back off exponentially
 *   (minBackoffMs doubling up to maxBackoffMs) and catch up from the cursor when MySQL is back.
 *
 * Health: component `mysql-sync`, kind `sync`, metrics {connected, lag, last_sync_at}. A mirror
 * that is down or behind is `degraded`, never `failed`: the gateway itself is fine (GET /health
 * stays 200) and the reason is in the detail.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { describeError, isVigilError } from '../../core/errors.js';
import type { HealthRegistry } from '../../core/health.js';
import type { Logger } from '../../core/logger.js';
import type { Service } from '../../core/service.js';
import type { DatabaseTarget } from '../../settings/database-check.js';
import type { ObjectRecord, OidOverride } from '../types.js';
import { describeRemoteError, describeTarget, openRemoteDb, type RemoteDb } from './remote-db.js';
import { claimMirror, migrateRemote } from './remote-schema.js';
import {
  INSTANCE_ID_KEY,
  OBJECTS_TABLE,
  OVERRIDES_TABLE,
  readEventsCursor,
  replicateEventBatch,
  type SyncStore,
} from './replicate.js';
import { TableMirror } from './table-mirror.js';

export const MYSQL_SYNC_HEALTH = 'mysql-sync';

export interface MysqlSyncOptions {
  /** Pause between cycles once caught up. */
  readonly intervalMs?: number;
  /** How often objects and OID overrides are compared (each scan reads both tables whole). */
  readonly snapshotIntervalMs?: number;
  readonly batchSize?: number;
  /** Event batches per cycle before yielding to the timer (the next cycle follows at once). */
  readonly maxBatchesPerCycle?: number;
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly connectTimeoutMs?: number;
  readonly queryTimeoutMs?: number;
}

export interface MysqlSyncDeps {
  readonly store: SyncStore;
  readonly target: DatabaseTarget;
  readonly health: HealthRegistry;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly options?: MysqlSyncOptions;
}

const DEFAULTS: Required<MysqlSyncOptions> = {
  intervalMs: 1000,
  snapshotIntervalMs: 10_000,
  batchSize: 500,
  maxBatchesPerCycle: 20,
  minBackoffMs: 1000,
  maxBackoffMs: 60_000,
  connectTimeoutMs: 10_000,
  queryTimeoutMs: 30_000,
};

/** How long stop() waits for a cycle under way (its queries are cut by closing the connection). */
const STOP_WAIT_MS = 5000;

export class MysqlSync implements Service {
  readonly name = MYSQL_SYNC_HEALTH;
  /** Events written to the mirror since start (replays included). */
  eventsSent = 0;
  private readonly deps: MysqlSyncDeps;
  private readonly options: Required<MysqlSyncOptions>;
  private readonly objects: TableMirror<ObjectRecord>;
  private readonly overrides: TableMirror<OidOverride>;
  private db: RemoteDb | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private cycling: Promise<void> | null = null;
  private failures = 0;
  private lastSnapshot = Number.NEGATIVE_INFINITY;
  private lastSyncAt: number | null = null;
  private instanceId = '';

  constructor(deps: MysqlSyncDeps) {
    this.deps = deps;
    this.options = { ...DEFAULTS, ...deps.options };
    this.objects = new TableMirror(OBJECTS_TABLE, this.options.batchSize);
    this.overrides = new TableMirror(OVERRIDES_TABLE, this.options.batchSize);
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.failures = 0;
    this.instanceId = this.ensureInstanceId();
    this.report('degraded', `connecting to ${describeTarget(this.deps.target)}`);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const db = this.db;
    this.db = null;
    // Closing first bounds a query under way to the close (1 s) instead of its 30 s timeout.
    const closing = db?.close();
    const cycling = this.cycling;
    if (cycling) await Promise.race([cycling, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    await closing;
    this.deps.health.remove(MYSQL_SYNC_HEALTH);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.cycling = this.runCycle().finally(() => {
        this.cycling = null;
      });
    }, ms);
  }

  private async runCycle(): Promise<void> {
    let next: number;
    try {
      const more = await this.cycle();
      this.failures = 0;
      next = more ? 0 : this.options.intervalMs;
    } catch (err) {
      if (this.stopped) return;
      next = this.failed(err);
    }
    this.schedule(next);
  }

  /** One pass: connect if needed, compare the small tables when due, send event batches. */
  private async cycle(): Promise<boolean> {
    const db = this.db ?? (await this.connect());
    if (!db) return false;
    if (performance.now() - this.lastSnapshot >= this.options.snapshotIntervalMs) {
      await this.overrides.sync(db, this.deps.store.overrides.list());
      await this.objects.sync(db, this.deps.store.objects.all());
      this.lastSnapshot = performance.now();
    }
    let more = false;
    for (let i = 0; i < this.options.maxBatchesPerCycle && !this.stopped; i++) {
      const result = await replicateEventBatch(db, this.deps.store, this.options.batchSize);
      this.eventsSent += result.sent;
      more = result.more;
      if (!more) break;
    }
    if (this.stopped) return false;
    this.lastSyncAt = this.deps.clock.now();
    this.report('ok', null);
    return more;
  }

  private async connect(): Promise<RemoteDb | null> {
    const { target, logger } = this.deps;
    let opened: RemoteDb | null = null;
    const db = await openRemoteDb(target, {
      connectTimeoutMs: this.options.connectTimeoutMs,
      queryTimeoutMs: this.options.queryTimeoutMs,
      // May fire while openRemoteDb still runs its first query: then the failing query reports it.
      onBroken: (err) => {
        if (opened) this.broken(opened, err);
      },
    });
    opened = db;
    if (this.stopped) {
      await db.close();
      return null;
    }
    try {
      const found = await migrateRemote(db);
      await claimMirror(db, this.instanceId);
      await this.objects.reset(db);
      await this.overrides.reset(db);
      this.lastSnapshot = Number.NEGATIVE_INFINITY;
      logger.info('connected to the MySQL mirror', { target: describeTarget(target), schema_version_found: found });
    } catch (err) {
      await db.close();
      throw err;
    }
    this.db = db;
    return db;
  }

  /** The server or the network broke the connection while idle: reconnect at the next cycle. */
  private broken(db: RemoteDb, err: Error): void {
    if (this.db !== db) return;
    this.db = null;
    void db.close();
    this.deps.logger.warn('MySQL mirror connection lost', {
      error: describeRemoteError(err, this.deps.target.sqlpass),
    });
    this.report('degraded', `connection lost: ${describeRemoteError(err, this.deps.target.sqlpass)}`);
  }

  /** Drops the connection and returns the backoff before the next attempt. */
  private failed(err: unknown): number {
    const db = this.db;
    this.db = null;
    void db?.close();
    this.failures++;
    // A mirror of another installation or of a newer schema needs a person: retry slowly.
    const needsOperator = isVigilError(err, 'CONFLICT');
    const backoff = needsOperator
      ? this.options.maxBackoffMs
      : Math.min(this.options.maxBackoffMs, this.options.minBackoffMs * 2 ** Math.min(this.failures - 1, 30));
    const password = this.deps.target.sqlpass;
    // A failed login shows only what a MySQL server said (remote-db.ts loginFailure); the log gets the driver's cause.
    const shown = isVigilError(err) ? err.message : describeRemoteError(err, password);
    const logged = isVigilError(err) && err.cause !== undefined ? describeRemoteError(err.cause, password) : shown;
    this.deps.logger.warn('MySQL sync failed; SQLite keeps everything, retrying', {
      error: logged,
      retry_ms: backoff,
      failures: this.failures,
    });
    this.report('degraded', `${shown}; retrying in ${Math.ceil(backoff / 1000)} s`);
    return backoff;
  }

  private ensureInstanceId(): string {
    const meta = this.deps.store.meta;
    let id = meta.get(INSTANCE_ID_KEY);
    if (!id) {
      id = randomUUID();
      meta.set(INSTANCE_ID_KEY, id);
    }
    return id;
  }

  private lag(): number | null {
    try {
      return Math.max(0, this.deps.store.events.maxId() - readEventsCursor(this.deps.store.meta));
    } catch (err) {
      this.deps.logger.debug('cannot compute sync lag', { error: describeError(err) });
      return null;
    }
  }

  private report(state: 'ok' | 'degraded', detail: string | null): void {
    if (this.stopped) return;
    this.deps.health.report(MYSQL_SYNC_HEALTH, 'sync', state, detail, {
      connected: this.db !== null,
      lag: this.lag(),
      last_sync_at: this.lastSyncAt,
    });
  }
}
