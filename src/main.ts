/**
 * The composition root. Start order: store -> settings -> first-start init -> internal-event
 * watchers -> services (outputs, then receivers) -> tracker, time sync, gateway events ->
 * management API. stop() runs the same list in reverse. What it builds is put together in
 * src/gateway/ (the restartable services, the HTTP side, the hardware, the event feeds).
 * Nothing else in src/ constructs long-lived components; only src/gateway/hardware.ts touches hw/.
 */
import { Admission } from './core/admission/admission.js';
import { connectionBudgetFor, readFdLimit } from './core/admission/fd-limit.js';
import { systemClock, type Clock } from './core/clock.js';
import { describeError } from './core/errors.js';
import { HealthRegistry, type ComponentHealth } from './core/health.js';
import type { Logger } from './core/logger.js';
import { ServiceGroup } from './core/service-group.js';
import { stopAll, type Service } from './core/service.js';
import type { SerialLineFactory } from './core/serial.js';
import type { HttpListeners } from './api/http-listeners.js';
import { StatusSlot } from './housekeeping/build-services.js';
import { tapTransitions } from './status-output/feed.js';
import { ReceiverRuntime } from './receivers/receiver-runtime.js';
import { initialiseDataDir, type InitResult } from './init/first-start.js';
import { InitialPasswordWatch } from './init/initial-password-watch.js';
import { FirstBootReporter } from './first-boot/reporter.js';
import { ClientRefusals } from './internal-events/client-refusals.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { defaultValidationEnv, type ValidationEnv } from './settings/environment.js';
import { SettingsService } from './settings/settings-service.js';
import type { Store } from './store/store.js';
import { storePath } from './store/store-path.js';
import { storeWithWriter } from './writer/store-with-writer.js';
import { SystemdNotifier } from './system/sd-notify.js';
import { RunRecorder } from './system/run-recorder.js';
import { applyPendingRestore } from './backup/apply-restore.js';
import { removeUploadLeftovers } from './services/backup-service.js';
import { SelfCheck } from './system/self-check.js';
import { StorageSpaceWatch } from './system/storage-space.js';
import type { StartupRules } from './ingest/startup-events.js';
import { buildSupervision } from './tracker/supervision-services.js';
import { readVersion } from './version.js';
import { eventStoredFeed } from './gateway/event-feeds.js';
import { gatewaySerialLines } from './gateway/hardware.js';
import { buildHttp } from './gateway/http.js';
import { UpdateMonitor } from './update/update-monitor.js';
import { UpdateSystem, updateOptionsFromEnv, type UpdateSystemOptions } from './update/update-system.js';
import { buildServices } from './gateway/services.js';
import { firstStartBanner, startNotes } from './gateway/start-texts.js';

export interface GatewayOptions {
  readonly dataDir: string;
  /** Override api.api_http_port / api.api_port for this run; 0 turns that listener off. */
  readonly httpPort?: number;
  readonly httpsPort?: number;
  /** Override api.bind_address for this run. */
  readonly host?: string;
  readonly logger: Logger;
  readonly clock?: Clock;
  readonly validation?: Partial<ValidationEnv>;
  /** Environment read for NOTIFY_SOCKET / WATCHDOG_USEC (defaults to process.env). */
  readonly env?: NodeJS.ProcessEnv;
  /** The sysfs tree the status LEDs are found in (default /sys; tests pass a temporary tree). */
  readonly sysfsRoot?: string;
  /** Where the first-start banner goes (stdout for the CLI). */
  readonly announce?: (text: string) => void;
  /** Which peers count as the box itself on plain HTTP (default: loopback; tests name a loopback alias "the LAN"). */
  readonly isLocalClient?: (address: string | undefined) => boolean;
  /** Stops the gateway and ends the process (the CLI's shutdown); POST /api/system/restart is offered only with it. */
  readonly requestStop?: () => void;
  /** Where the A/B update facilities are (docs/updates.md); defaults from the environment (VIGIL_RAUC...). */
  readonly update?: Partial<Omit<UpdateSystemOptions, 'dataDir' | 'version' | 'clock' | 'logger'>>;
}

/** What start() built that callers of a running gateway reach (tests, the CLI). */
interface Running {
  readonly store: Store;
  readonly settings: SettingsService;
  readonly services: ServiceGroup;
  readonly listeners: HttpListeners;
}

export class Gateway {
  readonly health: HealthRegistry;
  readonly startedAt: number;
  private readonly options: GatewayOptions;
  private readonly clock: Clock;
  private readonly started: Service[] = [];
  /** Set once start() has started everything up to the listeners; kept after stop() for reads. */
  private running: Running | null = null;
  private initResult: InitResult = { initialised: false };
  /** The serial port layer (docs/serial.md): every serial line is a `serial:<path>` component. */
  private readonly serialLines: SerialLineFactory;
  /** The status output of the current services run, for the tracker's lost / restored tap. */
  private readonly statusSlot = new StatusSlot();
  /** Clients the TCP server outputs refused, journaled rate-limited (docs/outputs.md §TCP server). */
  private readonly clientRefusals: ClientRefusals;

  constructor(options: GatewayOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.health = new HealthRegistry(() => this.clock.now());
    this.serialLines = gatewaySerialLines(this.health, options.logger.child('serial'));
    this.startedAt = this.clock.now();
    this.clientRefusals = new ClientRefusals({ clock: this.clock, logger: options.logger.child('outputs') });
  }

  get store(): Store {
    return this.parts().store;
  }

  get settings(): SettingsService {
    return this.parts().settings;
  }

  get services(): ServiceGroup {
    return this.parts().services;
  }

  /** The first-start result: carries the first password exactly once, on the run that made it. */
  get init(): InitResult {
    return this.initResult;
  }

  apiPorts(): { http?: number; https?: number } {
    return this.running?.listeners.ports() ?? {};
  }

  async start(): Promise<void> {
    const { logger, dataDir } = this.options;
    const version = readVersion();
    try {
      // The writer thread is the only writer of the file: group commits and every other thread's
      // writes as typed commands (docs/store.md §One writer).
      // A restore staged by `vigil restore`, the API or the page replaces the store before it opens (docs/backup.md).
      const restored = applyPendingRestore(dataDir, logger.child('restore'), this.clock.now());
      const leftovers = removeUploadLeftovers(dataDir);
      if (leftovers.length > 0) logger.warn('removed half-received backup uploads', { files: leftovers.join(', ') });
      const dbPath = storePath(dataDir);
      const { store, writer } = storeWithWriter(dbPath, logger, this.health, { clock: this.clock });
      await this.startService(store);
      // Free space for the journal: component `storage` warns well before the card is full (docs/store.md §Free space).
      await this.startService(
        new StorageSpaceWatch({
          dir: dataDir,
          health: this.health,
          freePageBytes: () => store.freePageBytes(),
          logger: logger.child('storage'),
        }),
      );

      const settings = new SettingsService({
        store,
        env: defaultValidationEnv(this.options.validation, logger.child('settings')),
        logger: logger.child('settings'),
      });
      await this.startService(settings);
      this.initResult = await initialiseDataDir({
        dataDir,
        settings,
        grants: store.write.grants,
        logger: logger.child('init'),
      });
      if (this.initResult.initialised) this.options.announce?.(firstStartBanner(this.initResult));
      // The clear-text first password goes once it no longer opens the first account (#28.13).
      await this.startService(new InitialPasswordWatch({ dataDir, settings, logger: logger.child('init') }));
      // What first boot did with vigil-setup.txt, as the `first-boot` health component (docs/first-boot.md).
      await this.startService(new FirstBootReporter(dataDir, this.health));
      // Why the previous run ended (watchdog, crash, power loss, clean stop), from last-run.json (docs/watchdog.md).
      const runRecorder = new RunRecorder({
        dataDir,
        health: this.health,
        clock: this.clock,
        logger: logger.child('last-run'),
      });
      await this.startService(runRecorder);

      // Shared by every receiver across restarts: group-committed ingest, its bus, live device links.
      // Ignorable startup events are flagged by the journal writer, inside the ingest's transaction
      // (docs/supervision.md): these rules travel with every batch.
      const startupRules = (): StartupRules => ({
        gatewayStartedAt: this.startedAt,
        triplets: settings.current().ignorable_startup_events,
      });
      // Prometheus figures (GET /metrics, docs/metrics.md); the ingest's timings come through PipelineMetrics.
      const metrics = new GatewayMetrics({
        health: this.health,
        objects: store.objects,
        dbPath,
        now: () => this.clock.now(),
      });
      metrics.start();
      // One admission budget for every door a stranger can reach (docs/security.md "Admission").
      const admission = new Admission({
        clock: this.clock,
        limits: () => settings.current().admission,
        autoSockets: () => connectionBudgetFor(readFdLimit()),
        health: this.health,
      });
      await this.startService(admission);
      settings.onChange(() => admission.configure());
      metrics.admit(admission);
      const receivers = new ReceiverRuntime({
        admission,
        store,
        writer,
        pipeline: metrics,
        health: this.health,
        clock: this.clock,
        logger: logger.child('receivers'),
        sessionLogCount: () => settings.current().database.device_session_log_count,
        startupRules,
        serial: this.serialLines,
      });
      const onEventStored = eventStoredFeed(receivers.bus);
      // Reads of objects show what was heard, ahead of the throttled stored sightings (docs/store.md §Sightings).
      receivers.bus.on('object-seen', ({ objectId, at, ping }) => store.sightings.note(objectId, at, ping));
      // Supervision and internal events (docs/supervision.md, docs/internal-events.md).
      const supervision = buildSupervision({
        store,
        settings,
        health: this.health,
        clock: this.clock,
        logger: logger.child('tracker'),
        version,
        ingest: receivers,
        startNotes: () => startNotes(runRecorder.previousRunLine(), restored),
        tapTrackerRaise: (raise) => tapTransitions(raise, () => this.statusSlot.sink, store.objects, this.clock),
      });
      for (const service of supervision.before) await this.startService(service);
      // A HELLO that fails its proof is journaled (docs/device-link.md §4.5).
      receivers.conflicts.journalTo(supervision.raise);
      this.clientRefusals.journalTo(supervision.raise);

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
            statusSlot: this.statusSlot,
            serialLines: this.serialLines,
            health: this.health,
            clock: this.clock,
            logger,
            sysfsRoot: this.options.sysfsRoot,
            httpPort: this.options.httpPort,
            httpsPort: this.options.httpsPort,
            onClientRefused: (refusal) => this.clientRefusals.report(refusal),
          }),
        logger.child('services'),
        this.health,
      );
      await this.startService(services);
      for (const service of supervision.after) await this.startService(service);
      // A/B system updates: installs, confirmation of a new slot, rollbacks (docs/updates.md).
      const updateSystem = new UpdateSystem({
        dataDir,
        version,
        clock: this.clock,
        logger: logger.child('update'),
        ...updateOptionsFromEnv(this.options.env ?? process.env),
        ...this.options.update,
      });
      let selfCheckPassing = (): boolean => false;
      const updateMonitor = new UpdateMonitor({
        system: updateSystem,
        health: this.health,
        selfCheckPassing: () => selfCheckPassing(),
        receiversListening: () => receiversListening(this.health.snapshot()),
        journal: (type, detail) => void supervision.raise(type, { detail }),
        previousRun: () => runRecorder.previousRunLine(),
      });
      receivers.bus.on('event-stored', ({ event }) => metrics.eventStored(event.receiverId, event.protocol));
      const listeners = buildHttp({
        version,
        startedAt: this.startedAt,
        dataDir,
        clock: this.clock,
        logger,
        health: this.health,
        settings,
        store,
        services,
        supervision,
        links: receivers.links,
        metrics,
        onEventStored,
        host: this.options.host,
        httpPort: this.options.httpPort,
        httpsPort: this.options.httpsPort,
        isLocalClient: this.options.isLocalClient,
        requestStop: this.options.requestStop,
        update: { system: updateSystem, reconcile: () => updateMonitor.reconcile() },
        admission,
      });
      await this.startService(listeners);
      this.running = { store, settings, services, listeners };
      // The watchdog is fed only while the internal checks pass (docs/watchdog.md).
      const selfCheck = new SelfCheck({
        health: this.health,
        store,
        writer: receivers.ingest.writerProbe,
        logger: logger.child('self-check'),
      });
      await this.startService(selfCheck);
      selfCheckPassing = () => selfCheck.passing();
      // After the self-check: the booted slot is confirmed only by a gateway that is up (docs/updates.md).
      await this.startService(updateMonitor);
      // Last: READY=1 only once everything above has started (sd_notify(3)).
      await this.startService(
        new SystemdNotifier({
          env: this.options.env ?? process.env,
          healthy: () => selfCheck.passing(),
          status: () => selfCheck.statusLine(),
          logger: logger.child('sd-notify'),
        }),
      );
      logger.info('gateway started', { version, data_dir: dataDir, ...this.apiPorts() });
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    const failures = await stopAll(this.started.splice(0));
    for (const err of failures) this.options.logger.error('stop failed', { error: describeError(err) });
  }

  private parts(): Running {
    if (!this.running) throw new Error('gateway not started');
    return this.running;
  }

  private async startService(service: Service): Promise<void> {
    await service.start();
    this.started.push(service);
  }
}

/** Every configured receiver listening (true with none): the trial slot's health condition (docs/updates.md). */
function receiversListening(components: readonly ComponentHealth[]): boolean {
  return components
    .filter((c) => c.kind === 'receiver' || c.name.startsWith('rx:'))
    .every((c) => c.state === 'ok' || c.state === 'degraded');
}
