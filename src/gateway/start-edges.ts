/**
 * The last phases of Gateway.start (src/main.ts): the restartable services, the HTTP side, and the
 * watch (self-check, update confirmation, READY=1), on top of what start-base.ts built.
 */
import type { ComponentHealth } from '../core/health.js';
import { ServiceGroup } from '../core/service-group.js';
import type { HttpListeners } from '../api/http-listeners.js';
import { SelfCheck } from '../system/self-check.js';
import { SystemdNotifier } from '../system/sd-notify.js';
import { ensureInstanceId } from '../store/meta-repo.js';
import { AlarmWatch } from '../update/alarm-watch.js';
import { updateReport } from '../update/fleet-report.js';
import { DEFAULT_CHANNEL_RUNTIME_DIR, DEFAULT_KEYRING, UpdateChannel } from '../update/update-channel.js';
import { UpdateMonitor } from '../update/update-monitor.js';
import { UpdateSystem, updateOptionsFromEnv } from '../update/update-system.js';
import { buildHttp } from './http.js';
import { buildServices } from './services.js';
import type { ConfigPhase, DiskPhase, IngestPhase, StartContext } from './start-base.js';

/** Built with the HTTP side (the update endpoints call the monitor's reconcile and the channel), started last. */
export interface WatchPhase {
  readonly selfCheck: SelfCheck;
  readonly updateMonitor: UpdateMonitor;
  readonly updateChannel: UpdateChannel;
}

/** The restartable services (outputs, receivers, housekeeping, LEDs; docs/architecture.md §Restart), then supervision's other half. */
export async function startServiceGroup(
  ctx: StartContext,
  disk: DiskPhase,
  config: ConfigPhase,
  ingest: IngestPhase,
): Promise<ServiceGroup> {
  const { logger, dataDir } = ctx.options;
  const { store, writer } = disk;
  const { settings } = config;
  const { receivers, onEventStored, supervision } = ingest;
  const services = new ServiceGroup(
    'services',
    () =>
      buildServices({
        dataDir,
        settings,
        store,
        writer,
        receivers,
        onEventStored,
        statusSlot: ctx.statusSlot,
        serialLines: ctx.serialLines,
        health: ctx.health,
        clock: ctx.clock,
        logger,
        sysfsRoot: ctx.options.sysfsRoot,
        httpPort: ctx.options.httpPort,
        httpsPort: ctx.options.httpsPort,
        onClientRefused: (refusal) => ctx.clientRefusals.report(refusal),
        fleetReport: () => ctx.fleetReport(),
      }),
    logger.child('services'),
    ctx.health,
  );
  await ctx.start(services);
  for (const service of supervision.after) await ctx.start(service);
  return services;
}

/** The management API, /metrics and the page on their listeners, with the A/B updates they reach (docs/updates.md). */
export async function startHttp(
  ctx: StartContext,
  disk: DiskPhase,
  config: ConfigPhase,
  ingest: IngestPhase,
  services: ServiceGroup,
): Promise<{ listeners: HttpListeners; watch: WatchPhase }> {
  const { logger, dataDir } = ctx.options;
  const { store } = disk;
  const { settings } = config;
  const { receivers, metrics, supervision } = ingest;
  const updateSystem = new UpdateSystem({
    dataDir,
    version: ctx.version,
    clock: ctx.clock,
    logger: logger.child('update'),
    ...updateOptionsFromEnv(ctx.options.env ?? process.env),
    ...ctx.options.update,
  });
  // The watchdog is fed only while the internal checks pass (docs/watchdog.md); passing() is false until it starts.
  const selfCheck = new SelfCheck({
    health: ctx.health,
    store,
    writer: receivers.ingest.writerProbe,
    logger: logger.child('self-check'),
  });
  const updateMonitor = new UpdateMonitor({
    system: updateSystem,
    health: ctx.health,
    selfCheckPassing: () => selfCheck.passing(),
    receiversListening: () => receiversListening(ctx.health.snapshot()),
    journal: (type, detail) => void supervision.raise(type, { detail }),
  });
  const updateChannel = channel(ctx, disk, config, ingest, updateSystem, updateMonitor);
  // GET /metrics counts the events stored from here on.
  receivers.bus.on('event-stored', ({ event }) => metrics.eventStored(event.receiverId, event.protocol));
  const { version, startedAt, clock, health } = ctx;
  const listeners = buildHttp({
    run: { version, startedAt, dataDir, clock, logger, health },
    settings,
    store,
    services,
    ingest: { ...ingest, links: receivers.links, admission: receivers.admission },
    listen: ctx.options,
    update: { system: updateSystem, reconcile: () => updateMonitor.reconcile(), channel: updateChannel },
  });
  await ctx.start(listeners);
  return { listeners, watch: { selfCheck, updateMonitor, updateChannel } };
}

/**
 * The update channel the box polls (settings `updates`, docs/updates.md "The update channel"), and the
 * report of the box's updates the MySQL mirror's `installations` takes from here on.
 */
function channel(
  ctx: StartContext,
  disk: DiskPhase,
  config: ConfigPhase,
  ingest: IngestPhase,
  system: UpdateSystem,
  monitor: UpdateMonitor,
): UpdateChannel {
  const env = ctx.options.env ?? process.env;
  const alarms = new AlarmWatch(ingest.receivers.bus);
  alarms.lookBack((filter) => disk.store.events.query(filter), ctx.clock.now());
  const updateChannel = new UpdateChannel({
    system,
    settings: () => config.settings.current().updates,
    instanceId: () => ensureInstanceId(disk.store),
    health: ctx.health,
    lastAlarmAt: () => alarms.lastAlarmAt(),
    reconcile: () => monitor.reconcile(),
    keyring: env.VIGIL_RAUC_KEYRING ?? DEFAULT_KEYRING,
    // systemd's RuntimeDirectory= (systemd/vigil.service): RAUC's streaming helper reads the CA there.
    runtimeDir: env.RUNTIME_DIRECTORY ?? DEFAULT_CHANNEL_RUNTIME_DIR,
  });
  ctx.reportUpdates(() => updateReport(system, updateChannel.facts()));
  return updateChannel;
}

/** Last: the self-check, the confirmation of a booted slot by a gateway that is up, and READY=1 (sd_notify(3)). */
export async function startWatch(
  ctx: StartContext,
  { selfCheck, updateMonitor, updateChannel }: WatchPhase,
): Promise<void> {
  await ctx.start(selfCheck);
  await ctx.start(updateMonitor);
  // After the monitor: a channel install waits for the running slot to be confirmed (docs/updates.md).
  await ctx.start(updateChannel);
  await ctx.start(
    new SystemdNotifier({
      env: ctx.options.env ?? process.env,
      healthy: () => selfCheck.passing(),
      status: () => selfCheck.statusLine(),
      logger: ctx.options.logger.child('sd-notify'),
    }),
  );
}

/** Every configured receiver listening (true with none): the trial slot's health condition (docs/updates.md). */
function receiversListening(components: readonly ComponentHealth[]): boolean {
  return components
    .filter((c) => c.kind === 'receiver' || c.name.startsWith('rx:'))
    .every((c) => c.state === 'ok' || c.state === 'degraded');
}
