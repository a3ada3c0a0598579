/** Messages between the main thread (WorkerJournalWriter) and the writer thread. */
import type { ErrorCode } from '../core/errors.js';
import type { WriterEndpoint } from '../store/writer-channel.js';
import type { WireBatch, WireResult } from './wire.js';
import type { PackedOps } from './wire-pack.js';

/** A WireBatch as it crosses to the writer thread: its ops packed flat (wire-pack.ts). */
export type PackedBatch = Omit<WireBatch, 'ops'> & { readonly ops: PackedOps };

export interface WriterInit {
  /** The store's SQLite file. */
  readonly path: string;
  readonly seenPersistMs?: number;
  /** The main thread's write-command channel (docs/store.md §One writer). */
  readonly endpoint: WriterEndpoint;
}

export type WriterRequest =
  | { readonly type: 'write'; readonly seq: number; readonly batch: PackedBatch }
  /** Another thread's write-command channel (an output worker). */
  | { readonly type: 'endpoint'; readonly endpoint: WriterEndpoint }
  /** Liveness round trip (JournalWriter.ping): answered with a pong of the same seq, in order. */
  | { readonly type: 'ping'; readonly seq: number }
  | { readonly type: 'close' };

export type WriterReply =
  | { readonly type: 'ready' }
  | { readonly type: 'fatal'; readonly error: string }
  | { readonly type: 'done'; readonly seq: number; readonly result: WireResult }
  | { readonly type: 'failed'; readonly seq: number; readonly error: string; readonly code: ErrorCode }
  | { readonly type: 'pong'; readonly seq: number }
  | { readonly type: 'closed'; readonly error: string | null };
