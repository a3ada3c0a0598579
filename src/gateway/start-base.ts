/**
 * The first phases of Gateway.start (src/main.ts): the store, the settings, and the ingest side every
 * receiver shares. Each starts what it built (through the context, so stop() stops it) before the next
 * phase builds on it, and returns what the later phases use.
 */
import { Admission } from '../core/admission/admission.js';
import { connectionBudgetFor, readFdLimit } from '../core/admission/fd-limit.js';
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import type { SerialLineFactory } from '../core/serial.js';
import type { Service } from '../core/service.js';
import { applyPendingRestore } from '../backup/apply-restore.js';
import { FirstBootReporter } from '../first-boot/reporter.js';
import type { StatusSlot } from '../housekeeping/build-services.js';
import type { StartupRules } from '../writer/startup-events.js';
import { initialiseDataDir, type InitResult } from '../init/first-start.js';
import { InitialPasswordWatch } from '../init/initial-password-watch.js';
import { ObjectRefusals } from '../internal-events/object-refusals.js';
import type { ClientRefusals } from '../internal-events/client-refusals.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ReceiverRuntime } from '../receivers/receiver-runtime.js';
import { removeUploadLeftovers } from '../services/backup-service.js';
import { defaultValidationEnv } from '../settings/environment.js';
import { SettingsService } from '../settings/settings-service.js';
import { tapTransitions } from '../status-output/feed.js';
import type { Store } from '../store/store.js';
import { storePath } from '../store/store-path.js';
import { RunRecorder } from '../system/run-recorder.js';
import { StorageSpaceWatch } from '../system/storage-space.js';
import { buildSupervision, type SupervisionParts } from '../tracker/supervision-services.js';
import { DEFAULT_CMDLINE_PATH, readBootedSlot } from '../update/boot-state.js';
import type { UpdateReport } from '../update/fleet-report.js';
import { storeWithWriter, type StoreWithWriter } from '../writer/store-with-writer.js';
import { eventStoredFeed, type EventStoredFeed } from './event-feeds.js';
import type { GatewayOptions } from './options.js';
import { firstStartBanner, startNotes } from './start-texts.js';

/** What the phases share: the run, the gateway's long-lived parts, and the one way to start a service. */
export interface StartContext {
  readonly options: GatewayOptions;
  readonly version: string;
  readonly startedAt: number;
  readonly clock: Clock;
  readonly health: HealthRegistry;
  /** The serial port layer (docs/serial.md): every serial line is a `serial:<path>` component. */
  readonly serialLines: SerialLineFactory;
  /** The status output of the current services run, for the tracker's lost / restored tap. */
  readonly statusSlot: StatusSlot;
  /** Clients the TCP server outputs refused, journaled rate-limited (docs/outputs.md §TCP server). */
  readonly clientRefusals: ClientRefusals;
  /** Starts `service` and records it, so that stop() stops it (in reverse order). */
  start(service: Service): Promise<void>;
  /** The first-start result, kept for the CLI (it carries the first password exactly once). */
  initialised(result: InitResult): void;
  /** The box's system updates for the MySQL mirror's `installations`: null until reportUpdates() names them. */
  fleetReport(): UpdateReport | null;
  reportUpdates(report: () => UpdateReport | null): void;
}

export interface DiskPhase {
  readonly store: Store;
  readonly writer: StoreWithWriter['writer'];
  readonly dbPath: string;
  /** The header of the backup restored at this start, or null. */
  readonly restored: ReturnType<typeof applyPendingRestore>;
}

export interface ConfigPhase {
  readonly settings: SettingsService;
  readonly runRecorder: RunRecorder;
}

export interface IngestPhase {
  readonly receivers: ReceiverRuntime;
  readonly metrics: GatewayMetrics;
  readonly onEventStored: EventStoredFeed;
  readonly supervision: SupervisionParts;
}

/**
 * The store: a restore staged by `vigil restore`, the API or the page replaces it before it opens
 * (docs/backup.md); the writer thread is the only writer of the file, group commits and every other
 * thread's writes as typed commands (docs/store.md §One writer).
 */
export async function openStore(ctx: StartContext): Promise<DiskPhase> {
  const { logger, dataDir } = ctx.options;
  const restored = applyPendingRestore(dataDir, logger.child('restore'), ctx.clock.now());
  const leftovers = removeUploadLeftovers(dataDir);
  if (leftovers.length > 0) logger.warn('removed half-received backup uploads', { files: leftovers.join(', ') });
  const dbPath = storePath(dataDir);
  const { store, writer } = storeWithWriter(dbPath, logger, ctx.health, { clock: ctx.clock });
  await ctx.start(store);
  // Free space for the journal: component `storage` warns well before the card is full (docs/store.md §Free space).
  await ctx.start(
    new StorageSpaceWatch({
      dir: dataDir,
      health: ctx.health,
      freePageBytes: () => store.freePageBytes(),
      logger: logger.child('storage'),
    }),
  );
  return { store, writer, dbPath, restored };
}

/** The settings, the first start of a data dir, and what the previous run and first boot left behind. */
export async function loadSettings(ctx: StartContext, { store }: DiskPhase): Promise<ConfigPhase> {
  const { logger, dataDir } = ctx.options;
  const settings = new SettingsService({
    store,
    env: defaultValidationEnv(ctx.options.validation, logger.child('settings')),
    logger: logger.child('settings'),
  });
  await ctx.start(settings);
  const init = await initialiseDataDir({ dataDir, settings, grants: store.write.grants, logger: logger.child('init') });
  ctx.initialised(init);
  if (init.initialised) ctx.options.announce?.(firstStartBanner(init));
  // The clear-text first password goes once it no longer opens the first account (docs/security.md "Initial password file").
  await ctx.start(new InitialPasswordWatch({ dataDir, settings, logger: logger.child('init') }));
  // What first boot did with vigil-setup.txt, as the `first-boot` health component (docs/first-boot.md).
  await ctx.start(new FirstBootReporter(dataDir, ctx.health));
  // Why the previous run ended (watchdog, crash, power loss, clean stop), from last-run.json (docs/watchdog.md).
  const runRecorder = new RunRecorder({
    dataDir,
    health: ctx.health,
    clock: ctx.clock,
    logger: logger.child('last-run'),
    // Each run's end keeps its slot: a rollback's cause is read from the runs on the slot left (docs/updates.md).
    slot: () => readBootedSlot(ctx.options.update?.cmdlinePath ?? DEFAULT_CMDLINE_PATH),
  });
  await ctx.start(runRecorder);
  return { settings, runRecorder };
}

/**
 * What every receiver shares across restarts (group-committed ingest, its bus, live device links), the
 * figures of GET /metrics, and supervision with the internal events (docs/supervision.md,
 * docs/internal-events.md), whose first services start here.
 */
export async function startIngest(ctx: StartContext, disk: DiskPhase, config: ConfigPhase): Promise<IngestPhase> {
  const { logger } = ctx.options;
  const { store, writer, dbPath, restored } = disk;
  const { settings, runRecorder } = config;
  // Ignorable startup events are flagged by the journal writer, inside the ingest's transaction
  // (docs/supervision.md): these rules travel with every batch.
  const startupRules = (): StartupRules => ({
    gatewayStartedAt: ctx.startedAt,
    triplets: settings.current().ignorable_startup_events,
  });
  // Prometheus figures (GET /metrics, docs/metrics.md); the ingest's timings come through PipelineMetrics.
  const metrics = new GatewayMetrics({
    health: ctx.health,
    objects: store.objects,
    dbPath,
    now: () => ctx.clock.now(),
  });
  metrics.start();
  // One admission budget for every door a stranger can reach (docs/security.md "Admission").
  const admission = new Admission({
    clock: ctx.clock,
    limits: () => settings.current().admission,
    autoSockets: () => connectionBudgetFor(readFdLimit()),
    health: ctx.health,
  });
  await ctx.start(admission);
  settings.onChange(() => admission.configure());
  metrics.admit(admission);
  const receivers = new ReceiverRuntime({
    admission,
    store,
    writer,
    pipeline: metrics,
    health: ctx.health,
    clock: ctx.clock,
    logger: logger.child('receivers'),
    sessionLogCount: () => settings.current().database.device_session_log_count,
    startupRules,
    serial: ctx.serialLines,
  });
  // Reads of objects show what was heard, ahead of the throttled stored sightings (docs/store.md §Sightings).
  receivers.bus.on('object-seen', ({ objectId, at, ping }) => store.sightings.note(objectId, at, ping));
  const supervision = buildSupervision({
    store,
    settings,
    health: ctx.health,
    clock: ctx.clock,
    logger: logger.child('tracker'),
    version: ctx.version,
    ingest: receivers,
    startNotes: () => startNotes(runRecorder.previousRunLine(), restored),
    tapTrackerRaise: (raise) => tapTransitions(raise, () => ctx.statusSlot.sink, store.objects, ctx.clock),
  });
  for (const service of supervision.before) await ctx.start(service);
  // A HELLO that fails its proof is journaled (docs/device-link.md §4.5).
  receivers.conflicts.journalTo(supervision.raise);
  // So is a message from an account never seen beyond the new-object allowance (docs/security.md "Admission").
  const objectRefusals = new ObjectRefusals({ clock: ctx.clock, logger: logger.child('admission') });
  objectRefusals.journalTo(supervision.raise);
  receivers.newObjects.onRefused = (refusal) => objectRefusals.report(refusal);
  ctx.clientRefusals.journalTo(supervision.raise);
  return { receivers, metrics, onEventStored: eventStoredFeed(receivers.bus), supervision };
}
