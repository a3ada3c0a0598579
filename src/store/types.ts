/**
 * Row types of the local store, in camelCase. The store imports from src/core only, so it
 * defines its own shapes; the settings module's `Settings` is structurally compatible with
 * `StoredSettings`.
 */
import type { Dc09QuirkName } from '../core/dc09-quirks.js';
import type { ReceiverKind } from '../core/event-row.js';

export type { ReceiverKind, EventQualifier } from '../core/event-row.js';
export type ConnectionState = 'online' | 'offline' | 'lost';

/** Lowest bit (value 1) of `events.flags`: an ignorable startup event, journaled but not forwarded. */
export const EVENT_FLAG_IGNORABLE_STARTUP = 0x01;

/** One page of a newest-first listing; pass `nextCursor` as `before` to get the next page. */
export interface Page<T> {
  readonly items: T[];
  readonly nextCursor: number | null;
}

// ---- settings -------------------------------------------------------------------------

export interface StoredUser {
  id: number;
  login: string;
  password_hash: string;
  token_time: number;
  scopes: string[];
  visible_receivers: { all: boolean; custom: number[] };
}

export type StoredSettings = { users: StoredUser[] } & Record<string, unknown>;

export interface UserGrant {
  readonly userId: number;
  readonly scopes: string[];
  readonly grantedAt: number;
  readonly grantedBy: string;
}

// ---- objects --------------------------------------------------------------------------

export interface ObjectRecord {
  readonly id: number;
  /** DC-09 account / OID exactly as received: text, leading zeros kept. */
  readonly account: string;
  /** Device link UID, upper-case hex; null for devices that never reported one. */
  readonly uid: string | null;
  readonly hwId: string | null;
  readonly firmware: string | null;
  /** Null for a main device; for a related object, the device whose connection carried it. */
  readonly mainObjectId: number | null;
  readonly receiverId: number;
  readonly receiverKind: ReceiverKind;
  readonly transport: string | null;
  readonly remoteAddress: string | null;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly lastPing: number | null;
  readonly connectionState: ConnectionState;
  readonly supervisionState: string | null;
  readonly linkPeriodS: number | null;
  readonly sms: boolean;
  readonly restoreCount: number;
  /** DC-09 deviations the object's frames showed (docs/dc09.md §12); absent when none. */
  readonly dc09Quirks?: readonly Dc09QuirkName[];
}

export interface MainObjectInput {
  readonly uid?: string | null;
  readonly account: string;
  readonly receiverId: number;
  readonly receiverKind: ReceiverKind;
  readonly transport?: string | null;
  readonly remoteAddress?: string | null;
  readonly hwId?: string | null;
  readonly firmware?: string | null;
  readonly sms?: boolean;
  /** When the message that revealed the object was received (ms epoch). */
  readonly at: number;
  /**
   * With a `uid` no object has yet: false keeps a plain panel's object with this account (no UID) as it
   * is and makes a new one; absent or true adopts it for the UID (an enrolment, docs/device-link.md §4.4).
   */
  readonly adoptPlain?: boolean;
}

export interface RelatedObjectInput {
  readonly hwId?: string | null;
  readonly firmware?: string | null;
  readonly remoteAddress?: string | null;
  readonly at: number;
}

/** Fields the tracker owns; only the ones given are changed. */
export interface SupervisionPatch {
  readonly supervisionState?: string | null;
  readonly linkPeriodS?: number | null;
  readonly sms?: boolean;
  readonly restoreCount?: number;
}

export interface ObjectListFilter {
  /** Receivers the caller may see; null means all. */
  readonly receiverIds: readonly number[] | null;
  readonly account?: string;
  readonly receiverId?: number;
  /** `online`, `offline` or `lost` (the technician's page lists lost objects first). */
  readonly connectionState?: string;
  /** The account, or the end of the UID (a partial UID as the device commands take it), upper-cased for the UID. */
  readonly search?: string;
  /** Cursor: only objects with an id below this one. */
  readonly before?: number;
  readonly limit: number;
}

export interface ObjectSession {
  readonly id: number;
  readonly objectId: number;
  readonly connectedAt: number;
  readonly disconnectedAt: number | null;
  readonly remoteAddress: string | null;
  readonly events: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

// ---- OID overrides --------------------------------------------------------------------

export type OverrideMatchKind = 'uid' | 'oid';

export interface OidOverride {
  readonly matchKind: OverrideMatchKind;
  /** Upper-case hex. */
  readonly matchValue: string;
  /** Upper-case hex; null when the override applies to the main device itself. */
  readonly relatedOid: string | null;
  readonly overrideOid: string;
  readonly updatedAt: number | null;
}

// ---- events ---------------------------------------------------------------------------

/* NewEvent and StoredEvent are derived from the event row's one column list (src/core/event-row.ts). */

export interface StoredEventRef {
  readonly id: number;
  readonly receivedAt: number;
}

export interface EventQuery {
  /** Receivers the caller may see; null means all. Events without a receiver need null. */
  readonly receiverIds: readonly number[] | null;
  readonly receiverId?: number;
  readonly account?: string;
  /** received_at >= from (ms epoch). */
  readonly from?: number;
  /** received_at < to (ms epoch): half-open, so adjacent windows never overlap. */
  readonly to?: number;
  readonly code?: string;
  /** Cursor: only events with an id below this one. */
  readonly before?: number;
  /**
   * Forward cursor: only events with an id above this one, and the page runs OLDEST first (the
   * API's event stream reads its backlog this way); `nextCursor` is then the next `after`.
   */
  readonly after?: number;
  /** 1..1000 */
  readonly limit: number;
}
