/**
 * The composition root. Start order: store -> settings -> first-start init -> internal-event
 * watchers -> services (outputs, then receivers) -> tracker, time sync, gateway events ->
 * management API. stop() runs the same list in reverse.
 * Nothing else in src/ constructs long-lived components or touches hw/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from './api/app.js';
import { HttpListeners } from './api/http-listeners.js';
import { plainHttpGate } from './api/plain-http-gate.js';
import { registerWeb } from './web/web-app.js';
import { registerMetrics } from './api/routes/metrics.js';
import { GatewayMetrics } from './metrics/gateway-metrics.js';
import { TokenService } from './auth/tokens.js';
import { systemClock, type Clock } from './core/clock.js';
import { describeError } from './core/errors.js';
import { HealthRegistry } from './core/health.js';
import type { Logger } from './core/logger.js';
import { ServiceGroup } from './core/service-group.js';
import { stopAll, type Service } from './core/service.js';
import { RegistryCommandPort, type LiveLinks } from './devices/registry-command-port.js';
import { StatusSlot, buildHousekeepingServices } from './housekeeping/build-services.js';
import { tapTransitions } from './status-output/feed.js';
import { ReceiverRuntime } from './receivers/receiver-runtime.js';
import { initialiseDataDir, type InitResult } from './init/first-start.js';
import { InitialPasswordWatch } from './init/initial-password-watch.js';
import { FirstBootReporter } from './first-boot/reporter.js';
import { OutputWorkerHost } from './outputs/output-host.js';
import { buildOutputs } from './outputs/build-outputs.js';
import { defaultValidationEnv, type ValidationEnv } from './settings/environment.js';
import type { Settings } from './settings/schema.js';
import { OUTPUT_TYPES } from './settings/schema-outputs.js';
import { SettingsService } from './settings/settings-service.js';
import type { WriterProxy } from './writer/writer-proxy.js';
import { storeWithWriter } from './writer/store-with-writer.js';
import type { Store } from './store/store.js';
import { SystemdNotifier } from './system/sd-notify.js';
import { RunRecorder } from './system/run-recorder.js';
import { applyPendingRestore } from './backup/apply-restore.js';
import { INSTANCE_ID_KEY } from './store/meta-repo.js';
import { removeUploadLeftovers } from './services/backup-service.js';
import type { BackupHeader } from './backup/backup-format.js';
import { SelfCheck } from './system/self-check.js';
import { StorageSpaceWatch } from './system/storage-space.js';
import { listeningPorts, portsNeedingCapability, readPrivilegeFacts } from './system/low-ports.js';
import type { StartupRules } from './tracker/startup-events.js';
import { buildSupervision } from './tracker/supervision-services.js';
import { readVersion } from './version.js';
import { openStatusLeds } from '../hw/leds/status-leds.js';
import type { LampsOpened } from './leds/lamp.js';
import { LedService } from './leds/led-service.js';
import type { HwLedsSettings } from './settings/schema.js';
import type { SerialLineFactory, SerialPortInfo } from './core/serial.js';
import { configuredSerialPorts } from './settings/serial-usage.js';
import { listSerialPorts, serialLineFactory } from '../hw/serial/index.js';

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
}

function readTls(settings: Settings, logger: Logger): { key: string; cert: string } | null {
  const { private_key: keyPath, public_key: certPath } = settings.api;
  if (!keyPath || !certPath) return null;
  try {
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8') };
  } catch (err) {
    logger.error('cannot read TLS key or certificate', { error: describeError(err) });
    return null;
  }
}

export class Gateway {
  readonly health: HealthRegistry;
  readonly startedAt: number;
  private readonly options: GatewayOptions;
  private readonly clock: Clock;
  private readonly started: Service[] = [];
  private storeRef: Store | null = null;
  private writerRef: WriterProxy | null = null;
  private settingsRef: SettingsService | null = null;
  private listenersRef: HttpListeners | null = null;
  private servicesRef: ServiceGroup | null = null;
  private receiversRef: ReceiverRuntime | null = null;
  private initResult: InitResult = { initialised: false };
  /** The serial port layer (docs/serial.md): every serial line is a `serial:<path>` component. */
  private readonly serialLines: SerialLineFactory;
  /** The status output of the current services run, for the tracker's lost / restored tap. */
  private readonly statusSlot = new StatusSlot();

  constructor(options: GatewayOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.health = new HealthRegistry(() => this.clock.now());
    this.serialLines = serialLineFactory({ health: this.health, logger: options.logger.child('serial') });
    this.startedAt = this.clock.now();
  }

  get store(): Store {
    if (!this.storeRef) throw new Error('gateway not started');
    return this.storeRef;
  }

  get settings(): SettingsService {
    if (!this.settingsRef) throw new Error('gateway not started');
    return this.settingsRef;
  }

  get services(): ServiceGroup {
    if (!this.servicesRef) throw new Error('gateway not started');
    return this.servicesRef;
  }

  /** The first-start result: carries the first password exactly once, on the run that made it. */
  get init(): InitResult {
    return this.initResult;
  }

  apiPorts(): { http?: number; https?: number } {
    return this.listenersRef?.ports() ?? {};
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
      const dbPath = join(dataDir, 'vigil.db');
      const { store, writer } = storeWithWriter(dbPath, logger, this.health, { clock: this.clock });
      this.writerRef = writer;
      await this.startService(store);
      this.storeRef = store;
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
        repo: store.settings,
        env: defaultValidationEnv(this.options.validation, logger.child('settings')),
        logger: logger.child('settings'),
      });
      await this.startService(settings);
      this.settingsRef = settings;
      this.initResult = await initialiseDataDir({
        dataDir,
        settings,
        grants: store.grants,
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
      const receivers = new ReceiverRuntime({
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
      this.receiversRef = receivers;
      // Reads of objects show what was heard, ahead of the throttled stored sightings (docs/store.md §Sightings).
      receivers.bus.on('object-seen', ({ objectId, at, ping }) => store.sightings.note(objectId, at, ping));
      const links: LiveLinks = receivers.links;
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

      const services = new ServiceGroup('services', () => this.buildServices(), logger.child('services'), this.health);
      await this.startService(services);
      this.servicesRef = services;
      for (const service of supervision.after) await this.startService(service);
      const apiDeps = {
        version,
        startedAt: this.startedAt,
        clock: this.clock,
        logger: logger.child('api'),
        health: this.health,
        settings,
        store,
        tokens: new TokenService({ secret: () => settings.current().api.api_jwt_secret, clock: this.clock }),
        devices: new RegistryCommandPort({
          objects: store.objects,
          links,
          logger: logger.child('devices'),
          overrides: store.overrides,
        }),
        deviceEnrolment: { store, clock: this.clock, logger: logger.child('devices') },
        services,
        throttle: supervision.loginThrottle,
        serialPorts: () => listSerialPorts(configuredSerialPorts(settings.current())),
        // The box itself: /api/system* and the System view (docs/backup.md).
        system: {
          dataDir,
          instanceId: () => store.meta.get(INSTANCE_ID_KEY),
          ...(this.options.requestStop ? { requestStop: this.options.requestStop } : {}),
        },
        onEventStored: (listener: (id: number) => void) => receivers.bus.on('event-stored', ({ id }) => listener(id)),
      };
      const app = createApp(apiDeps);
      receivers.bus.on('event-stored', ({ event }) => metrics.eventStored(event.receiverId, event.protocol));
      registerMetrics(app, apiDeps, metrics);
      // The technician's page on the same listeners (docs/web.md); its actions are journaled.
      registerWeb(app, {
        ...apiDeps,
        settingsView: settings,
        onEventStored: apiDeps.onEventStored,
        journalAction: (login, action) =>
          void supervision.raise('technician_action', { detail: `${login}: ${action}` }),
      });
      const current = settings.current();
      const listeners: HttpListeners = new HttpListeners(
        app.fetch,
        {
          host: this.options.host ?? current.api.bind_address,
          httpPort: this.options.httpPort ?? current.api.api_http_port,
          httpsPort: this.options.httpsPort ?? current.api.api_port,
          tls: readTls(current, logger),
          // Plain HTTP for loopback clients or by explicit setting; others go to HTTPS (#28.7).
          plainHttp: (fetch) =>
            plainHttpGate(fetch, {
              allowPlainHttp: () => settings.current().api.allow_plain_http,
              httpsPort: (): number | null => listeners.ports().https ?? null,
              ...(this.options.isLocalClient ? { isLocal: this.options.isLocalClient } : {}),
            }),
        },
        this.health,
        logger.child('api'),
      );
      await this.startService(listeners);
      this.listenersRef = listeners;
      // The watchdog is fed only while the internal checks pass (docs/watchdog.md).
      const selfCheck = new SelfCheck({
        health: this.health,
        store,
        writer: receivers.ingest.writerProbe,
        logger: logger.child('self-check'),
      });
      await this.startService(selfCheck);
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
    this.listenersRef = null;
    this.servicesRef = null;
  }

  /** Receivers and outputs, rebuilt from the current settings on every (re)start. */
  private buildServices(): Service[] {
    const receivers = this.receiversRef;
    const current = this.settings.current();
    // Outputs before receivers: started first and stopped last, so what the receivers journal while stopping is
    // still forwarded. They run in a worker thread with their own SQLite connection; the ingest bus wakes them at
    // once (docs/outputs.md §Threads, §Outbox).
    const outputs = new OutputWorkerHost({
      dbPath: join(this.options.dataDir, 'vigil.db'),
      ...(this.writerRef ? { writer: this.writerRef } : {}),
      outputs: current.outputs.filter((o) => o.type !== OUTPUT_TYPES.com),
      instanceName: current.general.instance_name,
      health: this.health,
      logger: this.options.logger,
      ...(receivers
        ? { onEventStored: (listener: () => void) => receivers.bus.on('event-stored', () => listener()) }
        : {}),
    });
    // Device status output, retention job, MySQL sync (docs/status-output.md, docs/retention.md, docs/mysql-sync.md).
    const housekeeping = buildHousekeepingServices({
      settings: this.settings,
      store: this.store,
      statusSlot: this.statusSlot,
      health: this.health,
      clock: this.clock,
      logger: this.options.logger,
      ...(receivers ? { bus: receivers.bus } : {}),
    });
    this.warnLowPorts(current);
    // The status LEDs first: their lamp test lights as the services start (docs/leds.md).
    const leds = new LedService({
      health: this.health,
      open: () => openLamps(current.hw.leds, this.options.sysfsRoot),
      logger: this.options.logger.child('leds'),
    });
    // Serial (type 3) outputs run on this thread: serialport's native poller cannot serve two threads of one process
    // (a port in the worker crashed the process while ports were open here; docs/outputs.md §Serial).
    const serialOutputs = buildOutputs(
      current.outputs.filter((o) => o.type === OUTPUT_TYPES.com),
      {
        store: this.store,
        health: this.health,
        logger: this.options.logger.child('outputs'),
        clock: this.clock,
        serial: this.serialLines,
        ...(receivers
          ? { onEventStored: (listener: () => void) => receivers.bus.on('event-stored', () => listener()) }
          : {}),
      },
    );
    return [leds, outputs, ...serialOutputs, ...housekeeping, ...(receivers ? receivers.build(current.receivers) : [])];
  }

  /** Ports below 1024 fail to bind without CAP_NET_BIND_SERVICE: say so, with the fix (docs/watchdog.md §Capabilities). */
  private warnLowPorts(current: Settings): void {
    const facts = readPrivilegeFacts();
    if (!facts) return;
    const ports = portsNeedingCapability(
      listeningPorts(current, { http: this.options.httpPort, https: this.options.httpsPort }),
      facts,
    );
    if (ports.length === 0) return;
    this.options.logger.warn(
      'ports below 1024 cannot be bound without CAP_NET_BIND_SERVICE: install systemd/vigil.service.d/low-ports.conf',
      {
        ports: ports.map((p) => `${p.what}=${p.port}`).join(', '),
      },
    );
  }

  private async startService(service: Service): Promise<void> {
    await service.start();
    this.started.push(service);
  }
}

/** The hardware layer's GPIO LEDs (hw/), as the LED service sees them. */
async function openLamps(settings: HwLedsSettings, sysfsRoot: string | undefined): Promise<LampsOpened> {
  if (!settings.enabled) return { lamps: null, reason: 'turned off in the settings (hw.leds.enabled)' };
  const opened = await openStatusLeds({
    ...(sysfsRoot !== undefined && { sysfsRoot }),
    lines: { power: settings.power_pin, link: settings.link_pin, trouble: settings.trouble_pin },
    activeLow: settings.active_low,
  });
  if (!opened.lamps) return opened;
  const { board, chip, lines, numbers } = opened;
  const description =
    `${board.name}, ${chip.label} base ${chip.base}: power GPIO ${lines.power} (${numbers.power}), ` +
    `link GPIO ${lines.link} (${numbers.link}), trouble GPIO ${lines.trouble} (${numbers.trouble})`;
  return { lamps: opened.lamps, description };
}

/** Serial lines for a tool outside the gateway (`vigil sim --serial`), with a health registry of their own. */
export function standaloneSerialLines(logger: Logger): SerialLineFactory {
  return serialLineFactory({ health: new HealthRegistry(), logger });
}

/** `vigil ports`: the serial devices on the box (docs/serial.md §Discovery); the CLI does not touch hw/ itself. */
export function discoverSerialPorts(configured: ReadonlyMap<string, readonly string[]>): Promise<SerialPortInfo[]> {
  return listSerialPorts(configured);
}

/** What `gateway_started` tells beside the version (docs/internal-events.md). */
function startNotes(previousRun: string | null, restored: BackupHeader | null): string | null {
  const notes = [];
  if (previousRun) notes.push(`previous run: ${previousRun}`);
  if (restored)
    notes.push(
      `restored from the backup of ${restored.instance_name || 'this box'} made ${restored.created_at} by version ${restored.app_version}`,
    );
  return notes.length > 0 ? notes.join('; ') : null;
}

function firstStartBanner(result: Extract<InitResult, { initialised: true }>): string {
  if (result.password === null) {
    return [
      'Vigil: data dir initialised.',
      `  first account:  ${result.login}`,
      '  password:       as set in vigil-setup.txt',
      '',
    ].join('\n');
  }
  return [
    'Vigil: data dir initialised.',
    `  first account:  ${result.login}`,
    `  password:       ${result.password}`,
    `  (shown once; also stored in ${result.passwordFile}, mode 0600)`,
    '',
  ].join('\n');
}
