/**
 * A Tracker over a real SQLite store in a temp dir, with one ManualClock driving the wall clock, the
 * supervision clock and the timers; internal events are journaled through the real recorder.
 */
import type { ManualClock } from '../../../src/core/clock.js';
import { TypedBus } from '../../../src/core/bus.js';
import { silentLogger } from '../../../src/core/logger.js';
import type { IngestEvents } from '../../../src/ingest/types.js';
import { ingestJournal } from '../../../src/internal-events/ingest-journal.js';
import { InternalEventRecorder } from '../../../src/internal-events/recorder.js';
import { defaultSettings, type InternalEventSettings, type TrackerSettings } from '../../../src/settings/schema.js';
import type { MainObjectInput, ObjectRecord } from '../../../src/store/types.js';
import type { StoredEvent } from '../../../src/core/event-row.js';
import { Tracker } from '../../../src/tracker/tracker.js';
import { startStore, type StoreFixture } from '../../store/helpers/store-fixture.js';
import { ClockTimers } from './clock-timers.js';

export const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);

export interface TrackerFixture {
  readonly fx: StoreFixture;
  readonly clock: ManualClock;
  readonly timers: ClockTimers;
  readonly bus: TypedBus<IngestEvents>;
  readonly recorder: InternalEventRecorder;
  tracker: Tracker;
  tracker_settings: TrackerSettings;
  internal_events: InternalEventSettings[];
  /** The next tracker's storedSightingsLagMs: 0, since message() stores last_seen with every sighting. */
  sightingsLagMs: number;
  /** A new Tracker over the same store (after the old one was stopped). */
  newTracker(): Tracker;
  addObject(overrides?: Partial<MainObjectInput>): Promise<ObjectRecord>;
  object(id: number): ObjectRecord;
  /** One committed message of the object now, as the ingest reports it (last_seen, then object-seen). */
  message(id: number, ping?: boolean): Promise<void>;
  /** Internal events in the journal, oldest first. */
  internalEvents(): StoredEvent[];
  cleanup(): Promise<void>;
}

export async function trackerFixture(tracker: Partial<TrackerSettings> = {}): Promise<TrackerFixture> {
  const fx = await startStore();
  const clock = fx.clock;
  clock.set(T0);
  const timers = new ClockTimers(clock);
  const bus = new TypedBus<IngestEvents>(silentLogger);
  const defaults = defaultSettings();
  const self: TrackerFixture = {
    fx,
    clock,
    timers,
    bus,
    tracker: undefined as unknown as Tracker,
    tracker_settings: { ...defaults.tracker, ...tracker },
    internal_events: defaults.internal_events.map((e) => ({ ...e })),
    sightingsLagMs: 0,
    recorder: new InternalEventRecorder({
      journal: ingestJournal(() => fx.store.write.events, bus),
      entries: () => self.internal_events,
      clock,
      logger: silentLogger,
    }),
    newTracker() {
      self.tracker = new Tracker({
        objects: fx.store.objects,
        meta: fx.store.meta,
        write: fx.store.write,
        settings: () => self.tracker_settings,
        storedSightingsLagMs: self.sightingsLagMs,
        bus,
        raise: self.recorder.raise,
        clock,
        timers,
        logger: silentLogger,
        health: fx.health,
      });
      return self.tracker;
    },
    async addObject(overrides = {}) {
      return await fx.store.write.objects.upsertMain({
        account: '1234',
        receiverId: 1,
        receiverKind: 'udp',
        transport: 'udp',
        remoteAddress: '10.0.0.9:4000',
        at: clock.now(),
        ...overrides,
      });
    },
    object(id) {
      const record = fx.store.objects.get(id);
      if (!record) throw new Error(`no object ${id}`);
      return record;
    },
    async message(id, ping = false) {
      await fx.store.write.objects.markSeen(id, clock.now(), null, { ping });
      bus.emit('object-seen', { objectId: id, at: clock.now(), ping, remoteAddress: null });
    },
    internalEvents() {
      const page = fx.store.events.query({ receiverIds: null, limit: 1000 });
      return page.items.filter((e) => e.protocol === 'INTERNAL').reverse();
    },
    cleanup: async () => {
      await self.tracker?.stop();
      await fx.cleanup();
    },
  };
  self.newTracker();
  return self;
}
