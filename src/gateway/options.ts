/** How a Gateway runs (src/main.ts): its data dir, the run's own overrides, and the seams tests use. */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { ValidationEnv } from '../settings/environment.js';
import type { UpdateSystemOptions } from '../update/update-system.js';

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
