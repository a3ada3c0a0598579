/**
 * The last phases of Gateway.start (src/main.ts): the restartable services, the HTTP side, and the
 * watch (self-check, update confirmation, READY=1), on top of what start-base.ts built.
 */
import type { ComponentHealth } from '../core/health.js';
import { ServiceGroup } from '../core/service-group.js';
import type { HttpListeners } from '../api/http-listeners.js';
import { SelfCheck } from '../system/self-check.js';
import { SystemdNotifier } from '../system/sd-notify.js';
import { UpdateMonitor } from '../update/update-monitor.js';
import { UpdateSystem, updateOptionsFromEnv } from '../update/update-system.js';
import { buildHttp } from './http.js';
import { buildServices } from './services.js';
import type { ConfigPhase, DiskPhase, IngestPhase, StartContext } from './start-base.js';

/** Built with the HTTP side (the update endpoints call the monitor's reconcile), started last. */
export interface WatchPhase {
  readonly selfCheck: SelfCheck;
  readonly updateMonitor: UpdateMonitor;
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
  const { settings, runRecorder } = config;
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
    previousRun: () => runRecorder.previousRunLine(),
  });
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
    update: { system: updateSystem, reconcile: () => updateMonitor.reconcile() },
  });
  await ctx.start(listeners);
  return { listeners, watch: { selfCheck, updateMonitor } };
}

/** Last: the self-check, the confirmation of a booted slot by a gateway that is up, and READY=1 (sd_notify(3)). */
export async function startWatch(ctx: StartContext, { selfCheck, updateMonitor }: WatchPhase): Promise<void> {
  await ctx.start(selfCheck);
  await ctx.start(updateMonitor);
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
