/**
 * The restartable set of receivers and outputs. `GET /api/restart-services` and settings changes
 * that need a restart go through restart(): stop everything in reverse start order, rebuild from
 * the current settings, start again. Restarts are serialised so two API calls cannot interleave.
 * When the group stops, each member's health entry (the component named like the service) leaves
 * the registry, whatever the member's own stop() did: a receiver that never bound and was then
 * removed from the settings must not keep /health at 503 (#28.15). Members still configured report
 * `starting` again as soon as the group starts them.
 */
import { describeError } from './errors.js';
import type { HealthRegistry } from './health.js';
import type { Logger } from './logger.js';
import { stopAll, type Service } from './service.js';

export type ServiceFactory = () => Service[];

export class ServiceGroup implements Service {
  readonly name: string;
  private readonly build: ServiceFactory;
  private readonly logger: Logger;
  private readonly health: Pick<HealthRegistry, 'remove'> | null;
  private running: Service[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    name: string,
    build: ServiceFactory,
    logger: Logger,
    health: Pick<HealthRegistry, 'remove'> | null = null,
  ) {
    this.name = name;
    this.build = build;
    this.logger = logger;
    this.health = health;
  }

  /** Services currently running, in start order. */
  services(): readonly Service[] {
    return this.running;
  }

  start(): Promise<void> {
    return this.serialise(() => this.startNow());
  }

  stop(): Promise<void> {
    return this.serialise(() => this.stopNow());
  }

  restart(): Promise<void> {
    return this.serialise(async () => {
      await this.stopNow();
      await this.startNow();
    });
  }

  private serialise(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    // Keep the chain alive after a failure so later calls still run.
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async startNow(): Promise<void> {
    const services = this.build();
    this.running = [];
    for (const service of services) {
      try {
        await service.start();
      } catch (err) {
        // One receiver that cannot bind its port must not keep the others down; its health
        // entry says why. The failure is logged and the rest start.
        this.logger.error('service failed to start', { service: service.name, error: describeError(err) });
      }
      this.running.push(service);
    }
  }

  private async stopNow(): Promise<void> {
    const failures = await stopAll(this.running);
    for (const err of failures) this.logger.error('service failed to stop', { error: describeError(err) });
    for (const service of this.running) this.health?.remove(service.name);
    this.running = [];
  }
}
