/**
 * The composition root. Start order, in named phases (src/gateway/start-base.ts, start-edges.ts):
 * store -> settings, first-start init, last run -> ingest, metrics, internal-event watchers ->
 * services (outputs, then receivers), tracker, time sync, gateway events -> management API and
 * page -> self-check, update confirmation, READY=1. stop() stops everything that started, in
 * reverse. Nothing else in src/ constructs long-lived components; only src/gateway/hardware.ts
 * touches hw/.
 */
import { systemClock, type Clock } from './core/clock.js';
import { describeError } from './core/errors.js';
import { HealthRegistry } from './core/health.js';
import type { ServiceGroup } from './core/service-group.js';
import { stopAll, type Service } from './core/service.js';
import type { SerialLineFactory } from './core/serial.js';
import type { HttpListeners } from './api/http-listeners.js';
import { StatusSlot } from './housekeeping/build-services.js';
import type { InitResult } from './init/first-start.js';
import { ClientRefusals } from './internal-events/client-refusals.js';
import type { SettingsService } from './settings/settings-service.js';
import type { Store } from './store/store.js';
import { readVersion } from './version.js';
import { gatewaySerialLines } from './gateway/hardware.js';
import type { GatewayOptions } from './gateway/options.js';
import type { UpdateReport } from './update/fleet-report.js';
import { loadSettings, openStore, startIngest, type StartContext } from './gateway/start-base.js';
import { startHttp, startServiceGroup, startWatch } from './gateway/start-edges.js';

export type { GatewayOptions } from './gateway/options.js';

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
  /** The box's system updates for the mirror (named by the HTTP phase, read by the services' sync). */
  private updateReport: (() => UpdateReport | null) | null = null;
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

  /**
   * Starts the gateway phase by phase, each starting what it built before the next builds on it: the
   * store, the settings, the ingest side, the restartable services, the HTTP side, and last the watch.
   * Anything that fails stops what already started.
   */
  async start(): Promise<void> {
    const ctx = this.startContext(readVersion());
    try {
      const disk = await openStore(ctx);
      const config = await loadSettings(ctx, disk);
      const ingest = await startIngest(ctx, disk, config);
      const services = await startServiceGroup(ctx, disk, config, ingest);
      const { listeners, watch } = await startHttp(ctx, disk, config, ingest, services);
      this.running = { store: disk.store, settings: config.settings, services, listeners };
      await startWatch(ctx, watch);
      this.options.logger.info('gateway started', {
        version: ctx.version,
        data_dir: this.options.dataDir,
        ...this.apiPorts(),
      });
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    const failures = await stopAll(this.started.splice(0));
    for (const err of failures) this.options.logger.error('stop failed', { error: describeError(err) });
  }

  private startContext(version: string): StartContext {
    return {
      options: this.options,
      version,
      startedAt: this.startedAt,
      clock: this.clock,
      health: this.health,
      serialLines: this.serialLines,
      statusSlot: this.statusSlot,
      clientRefusals: this.clientRefusals,
      start: async (service) => {
        await service.start();
        this.started.push(service);
      },
      initialised: (result) => {
        this.initResult = result;
      },
      fleetReport: () => this.updateReport?.() ?? null,
      reportUpdates: (report) => {
        this.updateReport = report;
      },
    };
  }

  private parts(): Running {
    if (!this.running) throw new Error('gateway not started');
    return this.running;
  }
}
