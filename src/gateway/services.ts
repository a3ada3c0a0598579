/**
 * The restartable services (docs/architecture.md §Restart): status LEDs, outputs, housekeeping and
 * receivers, rebuilt from the current settings on every (re)start of the `services` group.
 */
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import { type StatusSlot, buildHousekeepingServices } from '../housekeeping/build-services.js';
import { LedService } from '../leds/led-service.js';
import type { ClientRefusal } from '../outputs/build-outputs.js';
import { OutputWorkerHost, type WriterConnector } from '../outputs/output-host.js';
import type { ReceiverRuntime } from '../receivers/receiver-runtime.js';
import type { Settings } from '../settings/schema.js';
import type { SettingsService } from '../settings/settings-service.js';
import type { FleetReport } from '../store/mysql-sync/remote-schema-v3.js';
import type { Store } from '../store/store.js';
import { storePath } from '../store/store-path.js';
import { listeningPorts, portsNeedingCapability, readPrivilegeFacts } from '../system/low-ports.js';
import type { EventStoredFeed } from './event-feeds.js';
import { openLamps } from './hardware.js';

export interface ServicesDeps {
  readonly dataDir: string;
  readonly settings: SettingsService;
  readonly store: Store;
  /** The writer thread: the output worker's cursor writes go to it (docs/store.md §One writer). */
  readonly writer: WriterConnector;
  readonly receivers: ReceiverRuntime;
  readonly onEventStored: EventStoredFeed;
  readonly statusSlot: StatusSlot;
  readonly serialLines: SerialLineFactory;
  readonly health: HealthRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The tree the status LEDs are found in (default /sys). */
  readonly sysfsRoot?: string | undefined;
  /** The run's API port overrides, for the low-ports warning. */
  readonly httpPort?: number | undefined;
  readonly httpsPort?: number | undefined;
  /** A TCP server output refused a client outside its allow-list: journaled, rate-limited (docs/outputs.md §TCP server). */
  readonly onClientRefused?: (refusal: ClientRefusal) => void;
  /** The box's system updates for the mirror's `installations` (docs/updates.md "Watching a rollout"). */
  readonly fleetReport?: () => FleetReport | null;
}

export function buildServices(deps: ServicesDeps): Service[] {
  const { receivers, logger } = deps;
  const current = deps.settings.current();
  // Outputs before receivers: started first and stopped last, so what the receivers journal while stopping is
  // still forwarded. Every output runs in the output worker with its own SQLite connection; the ingest bus wakes
  // them at once; a serial output's line stays with this thread's serial port layer (docs/outputs.md §Threads).
  const outputs = new OutputWorkerHost({
    dbPath: storePath(deps.dataDir),
    writer: deps.writer,
    outputs: current.outputs,
    instanceName: current.general.instance_name,
    health: deps.health,
    logger,
    onEventStored: deps.onEventStored,
    serialLines: deps.serialLines,
    ...(deps.onClientRefused ? { onClientRefused: deps.onClientRefused } : {}),
  });
  // Device status output, retention job, MySQL sync (docs/status-output.md, docs/retention.md, docs/mysql-sync.md).
  const housekeeping = buildHousekeepingServices({
    settings: deps.settings,
    store: deps.store,
    statusSlot: deps.statusSlot,
    health: deps.health,
    clock: deps.clock,
    logger,
    bus: receivers.bus,
    admission: receivers.admission,
    onObjectsDeleted: () => receivers.reloadObjects(),
    ...(deps.fleetReport ? { fleetReport: deps.fleetReport } : {}),
  });
  warnLowPorts(current, deps);
  // The status LEDs first: their lamp test lights as the services start (docs/leds.md).
  const leds = new LedService({
    health: deps.health,
    open: () => openLamps(current.hw.leds, deps.sysfsRoot),
    logger: logger.child('leds'),
  });
  return [leds, outputs, ...housekeeping, ...receivers.build(current.receivers)];
}

/** Ports below 1024 fail to bind without CAP_NET_BIND_SERVICE: say so, with the fix (docs/watchdog.md §Capabilities). */
function warnLowPorts(current: Settings, deps: ServicesDeps): void {
  const facts = readPrivilegeFacts();
  if (!facts) return;
  const ports = portsNeedingCapability(listeningPorts(current, { http: deps.httpPort, https: deps.httpsPort }), facts);
  if (ports.length === 0) return;
  deps.logger.warn(
    'ports below 1024 cannot be bound without CAP_NET_BIND_SERVICE: install systemd/vigil.service.d/low-ports.conf',
    { ports: ports.map((p) => `${p.what}=${p.port}`).join(', ') },
  );
}
