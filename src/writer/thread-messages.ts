/**
 * Messages between the main thread (WriterProxy) and the writer thread. A batch and its
 * answer cross as tuples (docs/receivers.md §Group commit, "Crossing to the writer"): structured
 * clone writes the name of every property of every object, and the receiving thread rebuilds each
 * object's shape property by property, so the envelope objects and the WireResult cost more to
 * clone than the values they carry (docs/writer.md §Crossing). The rare
 * messages (ready, ping, close…) stay objects with a `type`; an array is a batch or its answer.
 */
import type { ErrorCode } from '../core/errors.js';
import type { WriterEndpoint } from './command-channel.js';
import type { StartupRules } from './startup-events.js';
import type { WireBatch, WireResult } from './wire.js';
import { packOps, unpackOps, type PackedOps } from './wire-pack.js';

export interface WriterInit {
  /** The store's SQLite file. */
  readonly path: string;
  readonly seenPersistMs?: number;
  /** The main thread's write-command channel (docs/store.md §One writer). */
  readonly endpoint: WriterEndpoint;
}

/**
 * A batch to commit: its seq, the ops packed (wire-pack.ts: their numbers transferred, their strings
 * once each), the raw bytes (transferred), the rest of WireBatch.
 */
export type WriteRequest = readonly [
  seq: number,
  ops: PackedOps,
  raw: Uint8Array,
  sessionLogCount: number,
  gatewayStartedAt: number | null,
  triplets: StartupRules['triplets'] | null,
];

/** A committed batch: its seq, then WireResult's fields in the order of the interface. */
export type DoneReply = readonly [
  seq: number,
  objectIds: WireResult['objectIds'],
  eventIds: WireResult['eventIds'],
  eventCount: number,
  helloObjects: WireResult['helloObjects'],
  registered: WireResult['registered'],
  opened: WireResult['opened'],
  adopted: WireResult['adopted'],
  flagged: WireResult['flagged'],
];

export type WriterRequest =
  | WriteRequest
  /** Another thread's write-command channel (an output worker). */
  | { readonly type: 'endpoint'; readonly endpoint: WriterEndpoint }
  /** Liveness round trip (JournalWriter.ping): answered with a pong of the same seq, in order. */
  | { readonly type: 'ping'; readonly seq: number }
  | { readonly type: 'close' };

export type WriterReply =
  | DoneReply
  | { readonly type: 'ready' }
  | { readonly type: 'fatal'; readonly error: string }
  | { readonly type: 'failed'; readonly seq: number; readonly error: string; readonly code: ErrorCode }
  | { readonly type: 'pong'; readonly seq: number }
  | { readonly type: 'closed'; readonly error: string | null };

/** An array is a batch; every other request is an object with a `type`. */
export function isWrite(request: WriterRequest): request is WriteRequest {
  return Array.isArray(request);
}

/** An array is a committed batch; every other reply is an object with a `type`. */
export function isDone(reply: WriterReply): reply is DoneReply {
  return Array.isArray(reply);
}

/** The buffers a request moves to the writer thread instead of cloning (postMessage's transfer list). */
export function transferOf(request: WriteRequest): ArrayBuffer[] {
  return [request[1][0].buffer as ArrayBuffer, request[2].buffer as ArrayBuffer];
}

export function packWrite(seq: number, batch: WireBatch): WriteRequest {
  const startup = batch.startup;
  return [
    seq,
    packOps(batch.ops),
    batch.raw,
    batch.sessionLogCount,
    startup ? startup.gatewayStartedAt : null,
    startup ? startup.triplets : null,
  ];
}

export function unpackWrite(request: WriteRequest): WireBatch {
  const [, ops, raw, sessionLogCount, gatewayStartedAt, triplets] = request;
  return {
    ops: unpackOps(ops),
    raw,
    sessionLogCount,
    startup: gatewayStartedAt === null ? null : { gatewayStartedAt, triplets: triplets ?? [] },
  };
}

export function packDone(seq: number, r: WireResult): DoneReply {
  return [seq, r.objectIds, r.eventIds, r.eventCount, r.helloObjects, r.registered, r.opened, r.adopted, r.flagged];
}

export function unpackDone(reply: DoneReply): WireResult {
  const [, objectIds, eventIds, eventCount, helloObjects, registered, opened, adopted, flagged] = reply;
  return { objectIds, eventIds, eventCount, helloObjects, registered, opened, adopted, flagged };
}
