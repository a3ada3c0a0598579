/**
 * Device time synchronisation over the device link (docs/supervision.md §Time sync):
 * every `general.synchronize_device_time_interval` minutes each device with a live link gets a
 * VL-TIME (LinkCommander.syncTime) and must answer VL-ACK within the command deadline; a device
 * that links up (welcomed VL-HELLO) gets one within `newLinkPollMs` (5 s): the links are polled,
 * so the link registry needs no callback into the tracker. A device that does not acknowledge raises
 * `device_link_failed` once; the next acknowledged sync ends that failure streak.
 * A setTimeout cannot wait longer than ~24.8 days and the interval may be a year, so the wait is
 * taken in slices against a due time on the (monotonic) clock.
 */
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import type { EventSubject } from '../internal-events/catalog.js';
import type { RaiseInternalEvent } from '../internal-events/recorder.js';
import { systemTimers, type TimerApi } from '../protocols/device-link/command-queue.js';

/** One live device link (the link registry's entry for a connected device). */
export interface SyncableLink {
  readonly objectId: number;
  /** Identifies the connection (the LinkCommander): a reconnect is a new link. Defaults to the entry itself. */
  readonly connection?: object;
  /** Sends VL-TIME; true when the device acknowledged it in time. */
  syncTime(utcOffsetMinutes?: number): Promise<boolean>;
}

export interface SyncableLinks {
  list(): Iterable<SyncableLink>;
}

export interface TimeSyncDeps {
  readonly links: SyncableLinks;
  /** general.synchronize_device_time_interval, in minutes; read at every arm. */
  readonly intervalMinutes: () => number;
  /** Subscribes to settings changes; the schedule restarts when the interval changed. */
  readonly watchInterval?: (listener: () => void) => () => void;
  readonly raise: RaiseInternalEvent;
  readonly subject: (objectId: number) => EventSubject | null;
  readonly clock: Clock;
  readonly timers?: TimerApi;
  readonly logger: Logger;
  /** VL-TIME's optional offset field; undefined: devices keep UTC (the default). */
  readonly utcOffsetMinutes?: () => number | undefined;
  /** Links synchronised at the same time (each waits up to the 10 s deadline). */
  readonly concurrency?: number;
  /** How often the links are checked for new ones, which get the time at once. */
  readonly newLinkPollMs?: number;
}

/** Longest single setTimeout Node honours (2^31 − 1 ms). */
export const MAX_TIMER_MS = 2_147_483_647;
export const DEFAULT_SYNC_CONCURRENCY = 16;
export const DEFAULT_NEW_LINK_POLL_MS = 5000;

export interface SyncRound {
  readonly sent: number;
  readonly acknowledged: number;
  readonly failed: number;
}

export class TimeSync implements Service {
  readonly name = 'time-sync';
  private readonly deps: TimeSyncDeps;
  private readonly timers: TimerApi;
  private readonly failing = new Set<number>();
  /** Connections that already had their time (a WeakSet: closed links are forgotten with them). */
  private readonly synced = new WeakSet<object>();
  private timer: unknown = null;
  private pollTimer: unknown = null;
  private dueAt = 0;
  private armedMinutes = 0;
  private running = false;
  private unwatch: (() => void) | null = null;

  constructor(deps: TimeSyncDeps) {
    this.deps = deps;
    this.timers = deps.timers ?? systemTimers;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unwatch =
      this.deps.watchInterval?.(() => {
        if (this.running && this.deps.intervalMinutes() !== this.armedMinutes) this.schedule();
      }) ?? null;
    this.schedule();
    this.poll();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unwatch?.();
    this.unwatch = null;
    this.clear();
    if (this.pollTimer !== null) this.timers.clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  /** A device linked up: it gets the time at once. */
  linked(link: SyncableLink): Promise<boolean> {
    this.synced.add(link.connection ?? link);
    return this.syncOne(link);
  }

  /** Links not synchronised since they connected get the time now; the poll timer calls it. */
  syncNewLinks(): number {
    let started = 0;
    for (const link of this.deps.links.list()) {
      if (this.synced.has(link.connection ?? link)) continue;
      started++;
      void this.linked(link);
    }
    return started;
  }

  /** Synchronises every live link now (the timer calls it each interval). */
  async runOnce(): Promise<SyncRound> {
    const links = [...this.deps.links.list()];
    for (const link of links) this.synced.add(link.connection ?? link);
    let acknowledged = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < links.length) {
        const link = links[next++]!;
        if (await this.syncOne(link)) acknowledged++;
      }
    };
    const width = Math.max(1, Math.min(this.deps.concurrency ?? DEFAULT_SYNC_CONCURRENCY, links.length));
    await Promise.all(Array.from({ length: width }, worker));
    const round = { sent: links.length, acknowledged, failed: links.length - acknowledged };
    this.deps.logger.info('device time sync', { ...round });
    return round;
  }

  private async syncOne(link: SyncableLink): Promise<boolean> {
    let ok = false;
    try {
      ok = await link.syncTime(this.deps.utcOffsetMinutes?.());
    } catch (err) {
      this.deps.logger.warn('time sync failed', { object_id: link.objectId, error: describeError(err) });
    }
    if (ok) {
      this.failing.delete(link.objectId);
    } else if (!this.failing.has(link.objectId)) {
      this.failing.add(link.objectId);
      const subject = this.deps.subject(link.objectId);
      void this.deps.raise('device_link_failed', {
        subject,
        detail: subject ? 'time sync not acknowledged' : `object ${link.objectId}: time sync not acknowledged`,
      });
    }
    return ok;
  }

  private schedule(): void {
    this.clear();
    this.armedMinutes = this.deps.intervalMinutes();
    this.dueAt = this.deps.clock.now() + this.armedMinutes * 60_000;
    this.arm();
  }

  private arm(): void {
    if (!this.running) return;
    const wait = Math.max(0, Math.min(this.dueAt - this.deps.clock.now(), MAX_TIMER_MS));
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      if (this.deps.clock.now() < this.dueAt) {
        this.arm();
        return;
      }
      this.schedule();
      void this.runOnce().catch((err: unknown) =>
        this.deps.logger.error('time sync round failed', { error: describeError(err) }),
      );
    }, wait);
  }

  private poll(): void {
    if (!this.running) return;
    this.syncNewLinks();
    this.pollTimer = this.timers.setTimeout(() => {
      this.pollTimer = null;
      this.poll();
    }, this.deps.newLinkPollMs ?? DEFAULT_NEW_LINK_POLL_MS);
  }

  private clear(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
