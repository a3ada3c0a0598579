/**
 * What the management API needs from the rest of the gateway. The shapes are structural
 * subsets of SettingsService (src/settings), Store (src/store) and the services group, so the
 * API depends on nothing but src/core and src/auth, and tests can hand in the real objects.
 */
import type { Clock } from '../core/clock.js';
import type { DeviceCommandPort } from '../core/device-commands.js';
import type { HealthRegistry } from '../core/health.js';
import type { Logger } from '../core/logger.js';
import type { SerialPortInfo } from '../core/serial.js';
import type { LoginThrottle } from '../auth/login-throttle.js';
import type { TokenService } from '../auth/tokens.js';
import type { DeviceEnrolmentDeps } from '../services/device-enrolment-service.js';
import type { Principal } from '../services/principal.js';
import type { UpdatePort } from '../services/update-service.js';

export interface ApiUser {
  readonly id: number;
  readonly login: string;
  readonly password_hash: string;
  /** Token lifetime in minutes (1..5,256,000). */
  readonly token_time: number;
  readonly scopes: readonly string[];
  readonly visible_receivers: { readonly all: boolean; readonly custom: readonly number[] };
}

export interface ApiSettings {
  readonly api: { readonly api_jwt_secret: string };
  readonly general: { readonly instance_name: string };
  readonly users: readonly ApiUser[];
}

export type SettingsUpdateResult = { ok: true; next: unknown } | { ok: false; errors: string[] };

export interface ApiSettingsPort {
  current(): ApiSettings;
  /** Throws VigilError('STORE_FAILURE') when the validated settings cannot be saved. */
  update(patch: unknown): Promise<SettingsUpdateResult>;
  /** The settings without secrets, for GET /api/settings. */
  publicView(): object;
}

/** Reads are synchronous; writes are explicit and awaited, each a command to the store's one writer (`write`). */
export interface ApiStorePort {
  readonly grants: {
    get(userId: number): string[];
  };
  /** Per-user token epochs, kept in memory (docs/security.md "Token invalidation"). */
  readonly tokenEpochs: { get(userId: number): number };
  /** Token ids ended by logout, kept in memory (docs/security.md "Logout"). */
  readonly revokedTokens: { has(jti: string): boolean };
  /** Records a logout: rejects with a VigilError when the file cannot take it (revoked in memory anyway). */
  revokeToken(jti: string, userId: number | null, expiresAt: number): Promise<void>;
  readonly overrides: {
    /** The override OID of a device (relatedOid null) or of its related object `relatedOid`. */
    resolve(device: { uid?: string | null; account?: string | null }, relatedOid: string | null): string | null;
  };
  readonly objects: {
    get(id: number): ApiObjectRow | null;
    findByUid(uid: string): ApiObjectRow | null;
    /** Main devices an OID override keyed by this account applies to, on any receiver. */
    findByOverrideAccount(account: string): ApiObjectRow[];
    /** Newest first; `before` is the cursor (an id); limit 1..1000. */
    list(filter: ApiListFilter & { account?: string }): { items: ApiObjectRow[]; nextCursor: number | null };
  };
  readonly events: {
    /**
     * Newest first; from inclusive, to exclusive (ms epoch); code compared case-insensitively.
     * With `after` (the event stream's backlog): ids above it, oldest first.
     */
    query(filter: ApiListFilter & { account?: string; from?: number; to?: number; code?: string; after?: number }): {
      items: ApiEventRow[];
      nextCursor: number | null;
    };
  };
  /** A cheap write probe; false answers oid-override with 503 `Database is not ready`. */
  isWritable(): Promise<boolean>;
  readonly write: {
    readonly grants: { set(userId: number, scopes: string[], grantedBy: string): Promise<void> };
    readonly overrides: {
      set(input: {
        matchKind: 'uid' | 'oid';
        matchValue: string;
        relatedOid: string | null;
        overrideOid: string;
      }): Promise<unknown>;
    };
  };
}

/** Shared by the listings: receiverIds null sees every receiver (and receiver-less events). */
export interface ApiListFilter {
  readonly receiverIds: readonly number[] | null;
  readonly receiverId?: number;
  readonly before?: number;
  readonly limit: number;
}

/** The fields of a store ObjectRecord that GET /api/objects shows. */
export interface ApiObjectRow {
  readonly id: number;
  readonly account: string;
  readonly uid: string | null;
  readonly hwId: string | null;
  readonly mainObjectId: number | null;
  readonly receiverId: number;
  readonly transport: string | null;
  readonly remoteAddress: string | null;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly lastPing: number | null;
  readonly connectionState: string;
  /** DC-09 deviations the object's panel showed (docs/dc09.md §12); absent when none. */
  readonly dc09Quirks?: readonly string[];
}

/** The fields of a store StoredEvent that GET /api/events shows. */
export interface ApiEventRow {
  readonly id: number;
  readonly receivedAt: number;
  readonly deviceTime: number | null;
  readonly receiverId: number | null;
  readonly transport: string | null;
  readonly remoteAddress: string | null;
  readonly objectId: number | null;
  readonly account: string;
  readonly protocol: string;
  readonly encrypted: boolean;
  readonly eventClass: string;
  readonly qualifier: string | null;
  readonly code: string | null;
  readonly groupNo: string | null;
  readonly zoneNo: string | null;
  readonly text: string | null;
  readonly flags: number;
  readonly raw: Uint8Array;
}

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

/** What /api/system* and the System view reach (src/services/system-service.ts, backup-service.ts). */
export interface SystemPort {
  /** The data dir: backups are made from it, uploads and staged restores land in it. */
  readonly dataDir: string;
  /** The instance id (meta `instance_id`); null before anything assigned one. */
  instanceId(): string | null;
  /** Stops the gateway cleanly and ends the process (systemd's Restart=always starts it again); absent: not offered. */
  readonly requestStop?: () => void;
  /** Bounds of a restore upload other than the defaults (src/services/backup-service.ts); tests only. */
  readonly uploadLimits?: { readonly maxBytes?: number; readonly reserveBytes?: number };
  /** A/B system updates (docs/updates.md); absent: not available on this system (slots null, 503). */
  readonly update?: UpdatePort;
}

/** The authenticated caller, carried in the Hono context as `principal` (src/services/principal.ts). */
export type { Principal } from '../services/principal.js';

/** How a route answers its errors: plain text, or `{"error": ...}` (oid-override, grants). */
export type ErrorStyle = 'text' | 'json';

export interface ApiEnv {
  Bindings: { incoming?: { socket?: { remoteAddress?: string; destroy?: () => void } } };
  Variables: { principal: Principal; errorStyle: ErrorStyle };
}
