/**
 * The MySQL sync adapter as a Service (settings `database`, docs/mysql-sync.md). SQLite stays the
 * source of truth; the mirror follows it in the background:
 * - never in the ingest's way: the sync runs on its own timer, reads SQLite in bounded batches
 *   and awaits MySQL asynchronously; receivers neither wait for it nor notice it;
 * - resumable: the events cursor is persisted in meta after each batch the mirror accepted;
 * - outage-proof: any MySQL error drops the connection and moves to the next configured server
 *   (server-rotation.ts); reconnects back off exponentially and catch up from the cursor;
 * - one of many: every row carries this installation's id, registered in `installations`.
 *
 * Health: component `mysql-sync`, kind `sync`, metrics {connected, lag, last_sync_at, server,
 * installation}. A mirror
 * that is down or behind is `degraded`, never `failed`: the gateway itself is fine (GET /health
 * stays 200) and the reason is in the detail.
 */
import type { Clock } from '../../core/clock.js';
import { describeError, isVigilError } from '../../core/errors.js';
import type { HealthRegistry } from '../../core/health.js';
import type { Logger } from '../../core/logger.js';
import type { Service } from '../../core/service.js';
import type { MultiServerTarget } from '../../settings/database-servers.js';
import type { ObjectRecord, OidOverride } from '../types.js';
import { describeRemoteError, describeTarget, openRemoteDb, type RemoteDb } from './remote-db.js';
import { claimInstallation, migrateRemote, recordSync, REMOTE_MIGRATIONS } from './remote-schema.js';
import { recordFleetReport, type FleetReport } from './remote-schema-v3.js';
import { ensureInstanceId } from '../meta-repo.js';
import { objectsTable, overridesTable, readEventsCursor, replicateEventBatch, type SyncStore } from './replicate.js';
import { ServerRotation } from './server-rotation.js';
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
  readonly target: MultiServerTarget;
  /** general.instance_name and the build's version, shown in the mirror's `installations`. */
  readonly installationName?: string;
  readonly version?: string;
  /** The box's system updates for `installations` (docs/updates.md "Watching a rollout"); written when it changes. */
  readonly fleetReport?: () => FleetReport | null;
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
  private objects: TableMirror<ObjectRecord> | null = null;
  private overrides: TableMirror<OidOverride> | null = null;
  private readonly servers: ServerRotation;
  private db: RemoteDb | null = null;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private cycling: Promise<void> | null = null;
  private lastSnapshot = Number.NEGATIVE_INFINITY;
  private lastSyncAt: number | null = null;
  private instanceId = '';
  /** The fleet report as last written (JSON), so an unchanged one is not written again. */
  private fleetWritten: string | null = null;
  /** The last failure, written to `installations.last_error` at the next connect. */
  private lastError: { text: string; at: Date } | null = null;

  constructor(deps: MysqlSyncDeps) {
    this.deps = deps;
    this.options = { ...DEFAULTS, ...deps.options };
    this.servers = new ServerRotation(deps.target, this.options.minBackoffMs, this.options.maxBackoffMs);
  }

  /** The instance id this sync writes under (read from SQLite meta at start). */
  get installation(): string {
    return this.instanceId;
  }

  /** host:port of the server in use (or being tried). */
  get server(): string {
    return this.servers.currentName;
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    this.servers.succeeded();
    this.instanceId = await ensureInstanceId(this.deps.store);
    this.objects = new TableMirror(objectsTable(this.instanceId), this.options.batchSize);
    this.overrides = new TableMirror(overridesTable(this.instanceId), this.options.batchSize);
    this.report('degraded', `connecting to ${this.servers.currentName}`);
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
      this.servers.succeeded();
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
    if (!db || !this.objects || !this.overrides) return false;
    if (performance.now() - this.lastSnapshot >= this.options.snapshotIntervalMs) {
      await this.overrides.sync(db, this.deps.store.overrides.list());
      await this.objects.sync(db, this.deps.store.objects.all());
      this.lastSnapshot = performance.now();
    }
    let more = false;
    let sent = 0;
    for (let i = 0; i < this.options.maxBatchesPerCycle && !this.stopped; i++) {
      const result = await replicateEventBatch(db, this.deps.store, this.options.batchSize, this.instanceId);
      sent += result.sent;
      this.eventsSent += result.sent;
      more = result.more;
      if (!more) break;
    }
    if (this.stopped) return false;
    const now = this.deps.clock.now();
    // Written when something moved or once per interval, not per idle cycle of a busy mirror.
    if (sent > 0 || this.lastSyncAt === null || now - this.lastSyncAt >= this.options.snapshotIntervalMs) {
      await recordSync(db, this.instanceId, new Date(now), this.lag(), this.servers.currentName);
    }
    this.lastSyncAt = now;
    await this.writeFleetReport(db, now);
    this.report('ok', null);
    return more;
  }

  private async writeFleetReport(db: RemoteDb, now: number): Promise<void> {
    const report = this.deps.fleetReport?.() ?? null;
    if (report === null) return;
    const json = JSON.stringify(report);
    if (json === this.fleetWritten) return;
    await recordFleetReport(db, this.instanceId, report, new Date(now));
    this.fleetWritten = json;
  }

  private async connect(): Promise<RemoteDb | null> {
    const { logger } = this.deps;
    const target = this.servers.current;
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
      const found = await migrateRemote(db, REMOTE_MIGRATIONS, { holder: this.instanceId });
      await claimInstallation(db, {
        installation: this.instanceId,
        name: this.deps.installationName ?? '',
        version: this.deps.version ?? '',
        server: describeTarget(target),
        lastError: this.lastError?.text.slice(0, 1024) ?? null,
        lastErrorAt: this.lastError?.at ?? null,
      });
      this.lastError = null;
      this.fleetWritten = null;
      await this.objects?.reset(db);
      await this.overrides?.reset(db);
      this.lastSnapshot = Number.NEGATIVE_INFINITY;
      logger.info('connected to the MySQL mirror', {
        target: describeTarget(target),
        schema_version_found: found,
        installation: this.instanceId,
      });
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
    const failedOn = this.servers.currentName;
    // A retired installation or a newer schema needs a person: retry slowly.
    const backoff = this.servers.failed(isVigilError(err, 'CONFLICT'));
    const password = this.deps.target.sqlpass;
    // A failed login shows only what a MySQL server said (remote-db.ts loginFailure); the log gets the driver's cause.
    const shown = isVigilError(err) ? err.message : describeRemoteError(err, password);
    const logged = isVigilError(err) && err.cause !== undefined ? describeRemoteError(err.cause, password) : shown;
    this.deps.logger.warn('MySQL sync failed; SQLite keeps everything, retrying', {
      server: failedOn,
      error: logged,
      retry_ms: backoff,
      next_server: this.servers.currentName,
      failures: this.servers.failureCount,
    });
    this.lastError = { text: `${failedOn}: ${shown}`, at: new Date(this.deps.clock.now()) };
    const retry = `retrying${this.servers.count > 1 ? ` on ${this.servers.currentName}` : ''} in ${Math.ceil(backoff / 1000)} s`;
    this.report('degraded', `${this.servers.count > 1 ? `${failedOn}: ` : ''}${shown}; ${retry}`);
    return backoff;
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
      server: this.servers.currentName,
      installation: this.instanceId,
    });
  }
}
