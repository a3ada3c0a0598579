/**
 * What receivers hand to the group-committed ingest, what they get back, and what the ingest
 * announces on its bus once a transaction has committed (docs/receivers.md §Group commit).
 */
import type { DecodedEvent } from '../protocols/dc09/handler.js';
import type { ObjectRecord, ReceiverKind } from '../store/types.js';
import type { NewEvent } from '../core/event-row.js';

export interface ReceiverRef {
  readonly id: number;
  readonly kind: ReceiverKind;
}

/** The device a TCP connection identified itself as with VL-HELLO (docs/device-link.md §4.1). */
export interface LinkedDevice {
  readonly objectId: number;
  readonly uid: string;
  /** The device's own DC-09 account as stored; '' until the device told it. */
  account: string;
}

/**
 * The `object_sessions` row of one TCP connection. The connection owns this record and counts
 * bytes into it; the ingest opens the row (inside its transaction) once the connection's device is
 * known and closes it when the connection ends.
 */
export interface SessionLog {
  id: number | null;
  objectId: number | null;
  readonly connectedAt: number;
  readonly remoteAddress: string;
  events: number;
  bytesIn: number;
  bytesOut: number;
  closed: boolean;
}

interface ItemBase {
  readonly receiver: ReceiverRef;
  /** 'tcp' or 'udp'. */
  readonly transport: string;
  /** "ip:port" of the device. */
  readonly remoteAddress: string;
  readonly receivedAt: number;
  readonly session: SessionLog | null;
}

/** One ACKable DC-09 frame: its events (none for a NULL link test) and its raw bytes. */
export interface FrameItem extends ItemBase {
  readonly kind: 'frame';
  readonly raw: Buffer;
  readonly events: readonly DecodedEvent[];
  readonly linkTest: boolean;
  /** The header account (`#acct`), used when the frame has no events; null when absent. */
  readonly account: string | null;
  readonly device: LinkedDevice | null;
  /** DC-09 deviations the frame showed, as a src/core/dc09-quirks.ts mask; absent = none. */
  readonly quirks?: number;
}

/** A welcomed VL-HELLO: register or update the object with that UID. */
export interface HelloItem extends ItemBase {
  readonly kind: 'hello';
  readonly uid: string;
  readonly account?: string;
  readonly hwId?: string;
  readonly firmware?: string;
  /**
   * The HELLO enrolled the device now (trust on first use, or an installer's enrolment window): it may
   * adopt the object of a plain panel with its account on the receiver. A HELLO proven with a key on
   * record never takes over another object (docs/device-link.md §4.4).
   */
  readonly adopt?: boolean;
}

export type IngestItem = FrameItem | HelloItem;

export interface IngestResult {
  /** The object the item was attributed to; null for a NULL frame without account on an unlinked connection. */
  readonly objectId: number | null;
  /** Journal ids of the item's events, in order. */
  readonly eventIds: readonly number[];
  /** HELLO only: the device's object as stored after the commit. */
  readonly object?: ObjectRecord;
}

/**
 * Who hears how a submit ended (EventIngest.submitTo): exactly one of the two is called, once.
 * The receivers' sessions pass one object per read instead of a promise and its reactions.
 */
export interface IngestSink {
  committed(results: IngestResult[]): void;
  failed(err: unknown): void;
}

/** Bus events, emitted after COMMIT only, in journal order. */
export interface IngestEvents {
  'event-stored': { readonly id: number; readonly event: NewEvent };
  'object-registered': { readonly object: ObjectRecord };
  /** Once per object per transaction. `ping`: a NULL link test was among its messages. */
  'object-seen': {
    readonly objectId: number;
    readonly at: number;
    readonly ping: boolean;
    readonly remoteAddress: string | null;
  };
}

/** Figures of the ingest; plain counters so reading them costs nothing. */
export interface IngestStats {
  /** Committed transactions. */
  flushes: number;
  failedFlushes: number;
  items: number;
  /** Journal rows written. */
  events: number;
  /** NULL frames: they update last_ping and are counted here, no journal row. */
  linkTests: number;
  objectsRegistered: number;
  /** Most items committed in one transaction. */
  largestFlush: number;
}
