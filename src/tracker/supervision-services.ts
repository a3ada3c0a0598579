/**
 * Wiring of supervision and internal events for the composition root (src/main.ts), so the
 * gateway adds a few lines only. Everything here lives for the whole process, outside the
 * restartable receivers/outputs group: a restart of the services is not a gateway restart.
 *
 *   before the services:  health bridge (receiver/output/store events), clock monitor
 *   after the services:   tracker, time sync, gateway events (gateway_started last; on stop,
 *                         gateway_stopping is journaled first, while the outputs still run)
 */
import type { TypedBus } from '../core/bus.js';
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';
import { SEEN_MAX_LAG_MS } from '../writer/seen-log.js';
import type { IngestEvents } from '../ingest/types.js';
import { systemTimers } from '../protocols/device-link/command-queue.js';
import type { LinkCommander } from '../protocols/device-link/link-commander.js';
import { ClockMonitor } from '../internal-events/clock-monitor.js';
import { GatewayEvents } from '../internal-events/gateway-events.js';
import { HealthEventBridge } from '../internal-events/health-events.js';
import { ingestJournal } from '../internal-events/ingest-journal.js';
import { ReportingLoginThrottle } from '../internal-events/login-events.js';
import { InternalEventRecorder, type RaiseInternalEvent } from '../internal-events/recorder.js';
import type { EventSubject } from '../internal-events/catalog.js';
import type { Settings } from '../settings/schema.js';
import type { Store } from '../store/store.js';
import { TimeSync, type SyncableLink } from './time-sync.js';
import { Tracker, monotonicClock } from './tracker.js';

export interface SupervisionDeps {
  readonly store: Store;
  readonly settings: {
    current(): Settings;
    onChange(listener: (next: Settings, previous: Settings) => void): () => void;
  };
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly version: string;
  /** What `gateway_started` tells beside the version: how the previous run ended, a restored backup. */
  readonly startNotes?: () => string | null;
  /** The receivers' shared parts: the ingest bus and the live device links. */
  readonly ingest: {
    readonly bus: TypedBus<IngestEvents>;
    readonly links: { entries(): Iterable<[number, LinkCommander]> };
  };
  /**
   * Wraps the raise function the Tracker gets, to observe its lost / restored transitions
   * (the device status output, src/status-output/feed.ts tapTransitions). Optional.
   */
  readonly tapTrackerRaise?: (raise: RaiseInternalEvent) => RaiseInternalEvent;
}

export interface SupervisionParts {
  readonly before: Service[];
  readonly after: Service[];
  readonly raise: RaiseInternalEvent;
  /** The API's login throttle, raising login_failed. */
  readonly loginThrottle: ReportingLoginThrottle;
}

export function buildSupervision(deps: SupervisionDeps): SupervisionParts {
  const { store, settings, clock, logger, ingest } = deps;
  const recorder = new InternalEventRecorder({
    journal: ingestJournal(() => store.write.events, ingest.bus),
    entries: () => settings.current().internal_events,
    clock,
    logger: logger.child('internal'),
  });
  const raise = recorder.raise;
  const subject = (objectId: number): EventSubject | null => {
    const o = store.objects.get(objectId);
    return o ? { objectId: o.id, account: o.account, receiverId: o.receiverId, receiverKind: o.receiverKind } : null;
  };
  const links = {
    list: (): SyncableLink[] => {
      const out: SyncableLink[] = [];
      for (const [objectId, link] of ingest.links.entries()) {
        out.push({ objectId, connection: link, syncTime: (offset) => link.syncTime(offset) });
      }
      return out;
    },
  };
  const before: Service[] = [
    new HealthEventBridge({
      health: deps.health,
      raise,
      logger: logger.child('health'),
      onStoreRestored: () => void recorder.retryPending(),
    }),
    new ClockMonitor({
      clock,
      monotonic: () => performance.now(),
      timers: systemTimers,
      raise,
      logger: logger.child('clock'),
    }),
  ];
  const after: Service[] = [
    new Tracker({
      objects: store.objects,
      meta: store.meta,
      write: store.write,
      settings: () => settings.current().tracker,
      bus: ingest.bus,
      // The journal writer thread stores sightings throttled (src/writer/seen-log.ts).
      storedSightingsLagMs: SEEN_MAX_LAG_MS,
      raise: deps.tapTrackerRaise ? deps.tapTrackerRaise(raise) : raise,
      clock,
      supervisionClock: monotonicClock,
      logger,
      health: deps.health,
    }),
    new TimeSync({
      links,
      intervalMinutes: () => settings.current().general.synchronize_device_time_interval,
      watchInterval: (listener) => settings.onChange(() => listener()),
      raise,
      subject,
      clock: monotonicClock,
      logger: logger.child('time-sync'),
    }),
    new GatewayEvents({
      raise,
      settings,
      logger,
      idle: () => recorder.idle(),
      version: deps.version,
      startNotes: deps.startNotes,
    }),
  ];
  // Real accounts' names keep their per-name state whatever else is tried (docs/security.md "Logins").
  const loginThrottle = new ReportingLoginThrottle({
    clock,
    raise,
    knownLogin: (login) => settings.current().users.some((u) => u.login === login),
  });
  return { before, after, raise, loginThrottle };
}
