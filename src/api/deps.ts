/**
 * What the management API needs from the rest of the gateway: the services' ports
 * (src/services/ports.ts) and the parts the routes hand to the services, all structural, so tests can
 * hand in the real objects. The page (src/web) takes the same, and a little more (web-deps.ts).
 */
import type { Clock } from '../core/clock.js';
import type { DeviceCommandPort } from '../core/device-commands.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { SerialPortInfo } from '../core/serial.js';
import type { LoginThrottle } from '../auth/login-throttle.js';
import type { TokenService } from '../auth/tokens.js';
import type { DeviceEnrolmentDeps } from '../services/device-enrolment-service.js';
import type { ApiSettingsPort, ApiStorePort, SystemPort } from '../services/ports.js';
import type { Principal } from '../services/principal.js';

export interface ApiDeps {
  readonly version: string;
  /** Milliseconds since the epoch when the gateway started. */
  readonly startedAt: number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly health: HealthRegistry;
  readonly settings: ApiSettingsPort;
  readonly store: ApiStorePort;
  readonly tokens: TokenService;
  readonly devices: DeviceCommandPort;
  readonly services: { restart(): Promise<void> };
  readonly throttle: LoginThrottle;
  /** Device-link key resets (POST /api/device-enrolment, docs/device-link.md §4.4); the gateway always gives it. */
  readonly deviceEnrolment?: DeviceEnrolmentDeps;
  /** The serial devices on the box with who uses them (GET /api/serial-ports; the gateway always gives it). */
  readonly serialPorts?: () => Promise<SerialPortInfo[]>;
  /**
   * Calls `listener` with the journal id of every newly stored event (the ingest bus
   * `event-stored`); returns the unsubscribe. Without it GET /api/events/stream reads once a second.
   */
  readonly onEventStored?: (listener: (id: number) => void) => () => void;
  /** Bounds of GET /api/events/stream other than the defaults (EVENT_STREAM_LIMITS). */
  readonly eventStream?: {
    readonly perUser?: number;
    readonly total?: number;
    readonly heartbeatMs?: number;
    readonly stallMs?: number;
    readonly pageSize?: number;
  };
  /** The box itself: /api/system*, the System view (docs/backup.md); without it those paths are 404. */
  readonly system?: SystemPort;
}

/** How a route answers its errors: plain text, or `{"error": ...}` (oid-override, grants). */
export type ErrorStyle = 'text' | 'json';

export interface ApiEnv {
  Bindings: { incoming?: { socket?: { remoteAddress?: string; destroy?: () => void } } };
  Variables: { principal: Principal; errorStyle: ErrorStyle };
}
