/**
 * Supervision of objects as a Service (docs/supervision.md): listens to the ingest's bus, sweeps
 * for overdue objects once a second, journals `object_lost` / `object_restored`, and keeps a
 * checkpoint in the meta table so the next start neither floods false "lost" events nor misses
 * a real one.
 */
import type { TypedBus } from '../core/bus.js';
import type { Clock } from '../core/clock.js';
import { describeError } from '../core/errors.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { SIGHTINGS_FLUSHED_KEY } from '../writer/seen-log.js';
import type { IngestEvents } from '../ingest/types.js';
import type { EventSubject } from '../internal-events/catalog.js';
import type { RaiseInternalEvent } from '../internal-events/recorder.js';
import { systemTimers, type TimerApi } from '../protocols/device-link/command-queue.js';
import type { TrackerSettings } from '../settings/schema.js';
import { PendingWrites } from './pending-writes.js';
import {
  Supervisor,
  type RunCheckpoint,
  type SupervisionObjects,
  type SupervisionWrites,
  type Transition,
} from './supervisor.js';

export const CHECKPOINT_KEY = 'tracker.checkpoint';
/** Health entry (kind `supervision`): metrics `supervised` and `lost`, read by the trouble LED (docs/leds.md). */
export const TRACKER_HEALTH = 'tracker';
export const DEFAULT_SWEEP_INTERVAL_MS = 1000;
/** How often the "still supervising" checkpoint is written (one small row; SD-card friendly). */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 60_000;

export interface TrackerMeta {
  get(key: string): string | null;
}

export interface TrackerDeps {
  readonly objects: SupervisionObjects;
  readonly meta: TrackerMeta;
  /** The tracker's writes: commands to the store's one writer (the Store's `write` view fits). */
  readonly write: {
    readonly objects: SupervisionWrites;
    readonly meta: { set(key: string, value: string): Promise<void>; delete(key: string): Promise<void> };
  };
  /** The tracker section, read at every use so a settings change applies at once. */
  readonly settings: () => TrackerSettings;
  /**
   * How far the stored last_seen may lag what the gateway heard after a stop that did not write
   * the pending sightings (crash, power loss): SEEN_MAX_LAG_MS with the journal writer thread's
   * throttled sightings, 0 for a store written at every sighting. docs/supervision.md §Restart.
   */
  readonly storedSightingsLagMs: number;
  readonly bus?: TypedBus<IngestEvents>;
  readonly raise: RaiseInternalEvent;
  /** Wall clock: persisted times and event times. */
  readonly clock: Clock;
  /** Monotonic clock for silences and periods (monotonicClock in production); defaults to `clock`. */
  readonly supervisionClock?: Clock;
  readonly timers?: TimerApi;
  readonly logger: Logger;
  readonly health?: HealthRegistry;
  readonly sweepIntervalMs?: number;
  readonly checkpointIntervalMs?: number;
}

/** A clock that never steps: performance.now() from the process's time origin. */
export const monotonicClock: Clock = { now: () => performance.timeOrigin + performance.now() };

export function parseCheckpoint(text: string | null): RunCheckpoint | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as { run_started_at?: unknown; alive_at?: unknown };
    if (typeof value.run_started_at !== 'number' || typeof value.alive_at !== 'number') return null;
    return { runStartedAt: value.run_started_at, aliveAt: value.alive_at };
  } catch {
    return null;
  }
}

export class Tracker implements Service {
  readonly name = 'tracker';
  readonly supervisor: Supervisor;
  private readonly deps: TrackerDeps;
  private readonly timers: TimerApi;
  private readonly sweepInterval: number;
  private readonly checkpointInterval: number;
  private unsubscribe: Array<() => void> = [];
  private timer: unknown = null;
  private running = false;
  private runStartedAt = 0;
  private lastCheckpoint = 0;
  private readonly pending = new PendingWrites();

  constructor(deps: TrackerDeps) {
    this.deps = deps;
    this.timers = deps.timers ?? systemTimers;
    this.sweepInterval = deps.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    this.checkpointInterval = deps.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
    const supervision = deps.supervisionClock ?? deps.clock;
    this.supervisor = new Supervisor({
      objects: deps.objects,
      writes: deps.write.objects,
      pending: this.pending,
      settings: deps.settings,
      now: () => supervision.now(),
      logger: deps.logger,
    });
  }

  async start(): Promise<void> {
    if (this.running) return;
    const previous = parseCheckpoint(this.deps.meta.get(CHECKPOINT_KEY));
    const flushed = this.sightingsFlushed(previous);
    const wallNow = this.deps.clock.now();
    this.supervisor.load({ checkpoint: previous, lastSeenLagMs: flushed ? 0 : this.deps.storedSightingsLagMs });
    this.runStartedAt = wallNow;
    this.writeCheckpoint(wallNow);
    this.running = true;
    const bus = this.deps.bus;
    if (bus) {
      this.unsubscribe = [
        bus.on('object-registered', ({ object }) => this.supervisor.registered(object)),
        bus.on('event-stored', ({ event }) => {
          if (event.eventClass === 'link_test' && event.objectId != null) this.supervisor.testEvent(event.objectId);
        }),
        bus.on('object-seen', ({ objectId, ping }) => this.heard(objectId, ping)),
      ];
    }
    this.deps.logger.info('supervision started', {
      objects: this.supervisor.size,
      previous_run: previous !== null,
      sightings_flushed: flushed,
    });
    this.sweep();
    this.arm();
    await this.pending.idle();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const off of this.unsubscribe) off();
    this.unsubscribe = [];
    this.deps.health?.remove(TRACKER_HEALTH);
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.writeCheckpoint(this.deps.clock.now());
    await this.pending.idle();
  }

  /** Resolves once every write sent so far (supervision state, checkpoint) has been answered. */
  idle(): Promise<void> {
    return this.pending.idle();
  }

  /** A committed message of the object (the ingest's object-seen); public for tests and other feeds. */
  heard(objectId: number, nullLinkTest: boolean): void {
    const transition = this.supervisor.heard(objectId, nullLinkTest);
    if (transition) this.report(transition);
  }

  /** One sweep; the timer runs it every sweep interval. */
  sweep(): void {
    for (const transition of this.supervisor.sweep()) this.report(transition);
    // Same state and detail every time: the figures update without a change notification.
    this.deps.health?.report(TRACKER_HEALTH, 'supervision', 'ok', null, {
      supervised: this.supervisor.size,
      lost: this.supervisor.lostCount,
    });
    const wallNow = this.deps.clock.now();
    if (wallNow - this.lastCheckpoint >= this.checkpointInterval) this.writeCheckpoint(wallNow);
  }

  private report(transition: Transition): void {
    const subject = this.subject(transition.objectId);
    this.deps.logger.warn(transition.kind === 'lost' ? 'object lost' : 'object restored', {
      object_id: transition.objectId,
      account: subject?.account,
    });
    // Without its record (deleted meanwhile) the event still names the object.
    const detail = subject ? null : `object ${transition.objectId}`;
    void this.deps.raise(transition.kind === 'lost' ? 'object_lost' : 'object_restored', { subject, detail });
  }

  private subject(objectId: number): EventSubject | null {
    try {
      const record = this.deps.objects.get(objectId);
      if (!record) return null;
      return {
        objectId: record.id,
        account: record.account,
        receiverId: record.receiverId,
        receiverKind: record.receiverKind,
      };
    } catch (err) {
      this.deps.logger.error('cannot read object for its event', { object_id: objectId, error: describeError(err) });
      return null;
    }
  }

  /**
   * Whether the previous run's writer stored every sighting as it closed, after that run's last
   * checkpoint (docs/supervision.md §Restart). The mark is removed here, so a crash of this run
   * cannot be taken for a clean stop.
   */
  private sightingsFlushed(previous: RunCheckpoint | null): boolean {
    try {
      const mark = Number(this.deps.meta.get(SIGHTINGS_FLUSHED_KEY));
      if (mark > 0)
        this.pending.add(this.deps.write.meta.delete(SIGHTINGS_FLUSHED_KEY), (err) =>
          this.deps.logger.error('cannot remove the sightings mark', { error: describeError(err) }),
        );
      return previous !== null && mark >= previous.aliveAt;
    } catch (err) {
      // Unknown: allowing for the lag is the safe side (a real loss reported later, never a false one).
      this.deps.logger.error('cannot read the sightings mark', { error: describeError(err) });
      return false;
    }
  }

  private writeCheckpoint(wallNow: number): void {
    this.lastCheckpoint = wallNow;
    const checkpoint = JSON.stringify({ run_started_at: this.runStartedAt, alive_at: wallNow });
    this.pending.add(this.deps.write.meta.set(CHECKPOINT_KEY, checkpoint), (err) =>
      this.deps.logger.error('cannot write supervision checkpoint', { error: describeError(err) }),
    );
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      this.sweep();
      this.arm();
    }, this.sweepInterval);
  }
}
