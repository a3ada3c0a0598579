/**
 * Reports what first boot did as the `first-boot` health component (kind `first-boot`), which the trouble
 * LED and /health read: `failed` with the problems when the setup file was rejected (docs/first-boot.md).
 * No status file (a development PC, or a box provisioned by hand) reports nothing.
 */
import type { HealthRegistry } from '../core/health.js';
import type { Service } from '../core/service.js';
import { describeErrors, readStatus } from './status.js';

export const FIRST_BOOT_COMPONENT = 'first-boot';

export class FirstBootReporter implements Service {
  readonly name = FIRST_BOOT_COMPONENT;
  private readonly dataDir: string;
  private readonly health: HealthRegistry;

  constructor(dataDir: string, health: HealthRegistry) {
    this.dataDir = dataDir;
    this.health = health;
  }

  async start(): Promise<void> {
    const read = readStatus(this.dataDir);
    if (read.kind === 'none') return;
    if (read.kind === 'unreadable') {
      this.health.report(FIRST_BOOT_COMPONENT, FIRST_BOOT_COMPONENT, 'failed', read.reason);
      return;
    }
    const { status } = read;
    const metrics = { outcome: status.outcome, at: status.at, errors: status.errors.length };
    if (status.outcome === 'rejected') {
      const detail = `vigil-setup.txt rejected: ${describeErrors(status.errors).join('; ')}`;
      this.health.report(FIRST_BOOT_COMPONENT, FIRST_BOOT_COMPONENT, 'failed', detail.slice(0, 500), metrics);
    } else {
      const detail = status.outcome === 'applied' ? 'vigil-setup.txt applied' : 'no vigil-setup.txt: defaults kept';
      this.health.report(FIRST_BOOT_COMPONENT, FIRST_BOOT_COMPONENT, 'ok', detail, metrics);
    }
  }

  async stop(): Promise<void> {
    this.health.remove(FIRST_BOOT_COMPONENT);
  }
}
