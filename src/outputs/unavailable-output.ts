/**
 * A configured output that cannot run (an identificator the link cannot use, a serial output without the serial port
 * layer). It reports 'failed' with the reason instead of doing nothing silently: /health shows the gateway is not
 * delivering there.
 */
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { Service } from '../core/service.js';

export class UnavailableOutput implements Service {
  readonly name: string;
  private readonly reason: string;
  private readonly health: HealthRegistry;
  private readonly logger: Logger;

  constructor(id: number, reason: string, health: HealthRegistry, logger: Logger) {
    this.name = `out:${id}`;
    this.reason = reason;
    this.health = health;
    this.logger = logger;
  }

  async start(): Promise<void> {
    this.logger.error('output cannot run', { reason: this.reason });
    this.health.report(this.name, 'output', 'failed', this.reason, { connected: false, backlog: null });
  }

  async stop(): Promise<void> {
    this.health.remove(this.name);
  }
}
