/**
 * What the main thread hands the journal writer for one group commit, and what comes back
 * (docs/receivers.md §Group commit). Plain data only: a batch crosses to the writer thread by
 * structured clone, so no class instances, no functions, no references to the receivers'
 * mutable records (SessionLog, LinkedDevice). Those are named by a key or carried as a snapshot,
 * and the main thread applies what the writer did to them after COMMIT.
 */
import type { WireRow } from '../store/journal-columns.js';
import type { ObjectRecord, ReceiverKind } from '../store/types.js';
import type { StartupRules } from './startup-events.js';

export type { WireRow } from '../store/journal-columns.js';

/** A connection's session row as the main thread knows it when the batch leaves. */
export interface WireSession {
  /** Stable per connection for the gateway's life (the writer's session map is keyed by it). */
  readonly key: number;
  /** The row id when a committed batch already opened it, else null. */
  readonly id: number | null;
  readonly connectedAt: number;
  readonly remoteAddress: string;
}

interface WireItemBase {
  readonly receiverId: number;
  readonly receiverKind: ReceiverKind;
  readonly transport: string;
  readonly remoteAddress: string;
  readonly receivedAt: number;
  readonly session: WireSession | null;
}

export interface WireFrame extends WireItemBase {
  readonly kind: 'frame';
  /** The account the frame is attributed by: its first event's, else the header's; null when none. */
  readonly account: string | null;
  readonly linkTest: boolean;
  /** DC-09 quirk mask (src/core/dc09-quirks.ts), 0 for a frame by the standard: marked on its object. */
  readonly quirks: number;
  /** Snapshot of the connection's device link: object id, UID, account ('' until known). */
  readonly device: { readonly objectId: number; readonly uid: string; readonly account: string } | null;
  /** The frame as received: [offset, length] in WireBatch.raw (all rows of a frame share it). */
  readonly raw: readonly [number, number];
  /** Journal rows; the writer adds the frame's fields, the object id and the startup flag. */
  readonly rows: WireRow[];
}

export interface WireHello extends WireItemBase {
  readonly kind: 'hello';
  readonly uid: string;
  readonly account: string | null;
  readonly hwId: string | null;
  readonly firmware: string | null;
  /** HelloItem.adopt: the device enrolled now and may adopt a plain panel's object. */
  readonly adopt: boolean;
}

export interface WireClose {
  readonly kind: 'close';
  readonly session: WireSession;
  readonly at: number;
  readonly events: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export type WireOp = WireFrame | WireHello | WireClose;

export interface WireBatch {
  readonly ops: WireOp[];
  /** Every frame's raw bytes, back to back: one buffer, transferred to the writer, not cloned. */
  readonly raw: Uint8Array;
  /** database.device_session_log_count when the batch left. */
  readonly sessionLogCount: number;
  /** Ignorable startup events (docs/supervision.md), flagged by the writer; null: flag nothing. */
  readonly startup: StartupRules | null;
}

/** What one committed batch did. Arrays of tuples keep the reply small to clone. */
export interface WireResult {
  /** Per frame/hello op, in order (close ops have none): the object the item was attributed to. */
  readonly objectIds: Array<number | null>;
  /**
   * Journal ids of every row of the batch, in row order: the first id when they are consecutive
   * (always: one transaction, and the journal assigns a batch consecutive ids, EventJournal.appendRows), else the list.
   */
  readonly eventIds: number | number[];
  /** Journal rows the batch wrote. */
  readonly eventCount: number;
  /** Per hello op, in order: the device's object after the commit. */
  readonly helloObjects: ObjectRecord[];
  readonly registered: ObjectRecord[];
  /** [session key, row id, object id] of session rows opened by the batch. */
  readonly opened: Array<[number, number, number]>;
  /** [device object id, account] of devices whose first message told their account. */
  readonly adopted: Array<[number, string]>;
  /** [row index in the batch, flags] of rows the writer flagged (ignorable startup events). */
  readonly flagged: Array<[number, number]>;
}

/**
 * Whether the writer is alive and committing, as the watchdog reads it (docs/watchdog.md): a
 * writer that stops answering shows as a growing stalledMs, whether a batch or a ping waits.
 */
export interface WriterLiveness {
  /** Milliseconds the oldest unanswered request (a batch or a ping) has waited; 0 when none waits. */
  readonly stalledMs: number;
  /** Wall time (ms epoch) of the last committed batch; null before the first. */
  readonly lastCommitAt: number | null;
  /** Batches committed since the writer was made (a count, so two commits in one millisecond differ). */
  readonly commits: number;
}

/** The writer's port as the ingest sees it: in this thread or in a worker. */
export interface JournalWriter {
  /** Commits the batch in ONE transaction; resolves after COMMIT, rejects when nothing was committed. */
  write(batch: WireBatch): Promise<WireResult>;
  /** Waits for the batch in flight, then releases the writer (its thread and connection). */
  close(): Promise<void>;
  /**
   * Sends a no-op round trip through the writer (a thread answers it in order, after the batch in
   * flight), so a hung writer shows in liveness() even while no batch is pending. At most one ping
   * is outstanding; without a running writer there is nothing to ping.
   */
  ping(): void;
  liveness(): WriterLiveness;
}

/** `writer` for an ingest that does not own it: close() is left to its owner (Store.stop closes its writer). */
export function borrowedWriter(writer: JournalWriter): JournalWriter {
  return {
    write: (batch) => writer.write(batch),
    ping: () => writer.ping(),
    liveness: () => writer.liveness(),
    close: async () => undefined,
  };
}
