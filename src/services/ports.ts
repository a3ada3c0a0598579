/**
 * The ports the services (and so the management API and the page) reach the rest of the gateway
 * through, and the contract's row types. The shapes are structural subsets of SettingsService
 * (src/settings), Store (src/store) and the update machinery, so the services depend on nothing
 * but src/core and src/auth for them, and tests can hand in the real objects.
 */
import type { StoredEvent } from '../core/event-row.js';
import type { UpdatePort } from './update-service.js';

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

/** The journal's fields GET /api/events leaves out (docs/api.md "Objects and events"). */
export type HiddenEventField = 'deviceTimeText' | 'receiverKind' | 'dc09Receiver' | 'dc09Line' | 'sequence';

/** A stored event as the services read it: every field of the one column list but the hidden ones. */
export type ApiEventRow = Omit<StoredEvent, HiddenEventField>;

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
