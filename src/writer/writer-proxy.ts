/**
 * The writer thread seen from the main thread: the journal writer of the group commit
 * (docs/receivers.md §Group commit) and the store's single writer (docs/store.md §One writer,
 * StoreWriter: typed write commands, each a Promise settled by the thread's answer,
 * command-channel.ts). The gateway's Store starts it once the file is migrated; used on its own
 * (tests) it starts on the first write. It is kept unreferenced while no batch is in flight, so it
 * never holds a process open by itself.
 *
 * If the thread dies, the batch in flight rejects (no ACK: the devices retransmit), commands
 * awaiting an answer reject with STORE_FAILURE, new commands fail with STORE_UNAVAILABLE, and the
 * next write or command starts a new thread, not
 * before a backoff delay that doubles per consecutive death (RESTART_DELAYS_MS) and resets after a
 * committed batch. Other threads' channels (connect()) are renewed with each new thread.
 * close() waits for the batch in flight,
 * lets the thread write its throttled sightings and close its connection, and terminates it if
 * it does not finish in time.
 *
 * Liveness (docs/watchdog.md): ping() posts a no-op that the thread answers after the batch in
 * flight; liveness().stalledMs is the age of the oldest unanswered batch or ping, so a thread
 * that hangs in a commit, or stops reading its messages, is seen even while no batch waits.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { VigilError, describeError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { StoreWriter } from '../store/store.js';
import type { WriteCommand, WriteResult } from '../store/write-commands.js';
import { WriteClient, writerChannel, type WriterEndpoint } from './command-channel.js';
import type { JournalWriter, WireBatch, WireResult, WriterLiveness } from './wire.js';
import {
  isDone,
  packWrite,
  transferOf,
  unpackDone,
  type DoneReply,
  type WriterInit,
  type WriterReply,
  type WriterRequest,
} from './thread-messages.js';

export const RESTART_DELAYS_MS: readonly number[] = [0, 250, 500, 1000, 2000, 5000];
const CLOSE_TIMEOUT_MS = 10_000;

export interface WriterProxyOptions {
  readonly path: string;
  readonly logger: Logger;
  readonly seenPersistMs?: number;
  /** Worker script; tests point it at a writer that misbehaves. */
  readonly script?: URL;
}

interface Pending {
  resolve(result: WireResult): void;
  reject(err: unknown): void;
  /** performance.now() when the batch was posted (liveness). */
  readonly since: number;
}

/** Receives another thread's channel to the writer: a new one per writer thread, null while there is none. */
export type EndpointListener = (endpoint: WriterEndpoint | null) => void;

export class WriterProxy implements JournalWriter, StoreWriter {
  private readonly options: WriterProxyOptions;
  private readonly client = new WriteClient(null);
  private readonly listeners = new Set<EndpointListener>();
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private seq = 0;
  private deaths = 0;
  private notBefore = 0;
  private closing: Promise<void> | null = null;
  private onClosed: (() => void) | null = null;
  /** The outstanding liveness ping: its seq and performance.now() when posted. */
  private outstandingPing: { readonly seq: number; readonly since: number } | null = null;
  private lastCommitAt: number | null = null;
  private commits = 0;
  /** Threads started so far (1 unless one died or the writer was closed and used again). */
  starts = 0;

  constructor(options: WriterProxyOptions) {
    this.options = options;
  }

  /** Starts the thread (if it is not running) and waits until it answers. */
  async start(): Promise<void> {
    await this.startThread();
  }

  /** A write command (StoreWriter.send): settles with the thread's answer; nothing here waits for it. */
  send<C extends WriteCommand>(command: C, timeoutMs?: number): Promise<WriteResult<C>> {
    if (!this.worker && !this.closing) {
      // Dead (or never started): a new thread for the next caller; this one fails (STORE_UNAVAILABLE).
      this.startThread().catch(() => undefined);
    }
    return this.client.send(command, timeoutMs);
  }

  /**
   * A channel for another thread (the output worker): `listener` gets its endpoint now if the thread
   * runs, and a new one each time a new thread starts (null when the thread died). Returns the unregister.
   */
  connect(listener: EndpointListener): () => void {
    this.listeners.add(listener);
    if (this.worker) this.attach(this.worker, listener);
    return () => this.listeners.delete(listener);
  }

  async write(batch: WireBatch): Promise<WireResult> {
    if (this.closing) throw new VigilError('STORE_UNAVAILABLE', 'journal writer is stopping');
    const worker = await this.startThread();
    const seq = ++this.seq;
    return new Promise<WireResult>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject, since: performance.now() });
      if (this.pending.size === 1) worker.ref();
      // The batch crosses as a tuple, its ops packed (thread-messages.ts, wire-pack.ts); the packed
      // numbers and the raw bytes move to the writer thread (zero copy): nothing here reads them again.
      const request = packWrite(seq, batch);
      worker.postMessage(request satisfies WriterRequest, transferOf(request));
    });
  }

  ping(): void {
    const worker = this.worker;
    if (!worker || this.outstandingPing || this.closing) return;
    const seq = ++this.seq;
    this.outstandingPing = { seq, since: performance.now() };
    worker.postMessage({ type: 'ping', seq });
  }

  liveness(): WriterLiveness {
    let oldest = this.outstandingPing?.since ?? Infinity;
    for (const pending of this.pending.values()) oldest = Math.min(oldest, pending.since);
    return {
      stalledMs: oldest === Infinity ? 0 : Math.max(0, performance.now() - oldest),
      lastCommitAt: this.lastCommitAt,
      commits: this.commits,
    };
  }

  async close(): Promise<void> {
    if (!this.closing) this.closing = this.shutdown().finally(() => (this.closing = null));
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const ready = this.ready;
    if (!ready) return;
    const worker = await ready.catch(() => null);
    if (!worker) return;
    worker.ref();
    const closed = new Promise<void>((resolve) => (this.onClosed = resolve));
    // Messages are handled in order: the batch in flight is answered before the close.
    worker.postMessage({ type: 'close' });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS)));
    const clean = await Promise.race([closed.then(() => true), timeout]);
    clearTimeout(timer);
    if (!clean)
      this.options.logger.error('journal writer did not stop in time; terminated', { timeout_ms: CLOSE_TIMEOUT_MS });
    this.client.replace(null);
    await worker.terminate();
  }

  private attach(worker: Worker, listener: EndpointListener): void {
    const { writer, caller } = writerChannel();
    worker.postMessage({ type: 'endpoint', endpoint: writer }, [writer]);
    listener(caller);
  }

  private startThread(): Promise<Worker> {
    if (this.ready) return this.ready;
    const ready = this.spawn();
    this.ready = ready;
    // A thread that failed to start is started again by the next write (after the backoff).
    ready.catch(() => {
      if (this.ready === ready) this.ready = null;
    });
    return ready;
  }

  private async spawn(): Promise<Worker> {
    const wait = this.notBefore - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const channel = writerChannel();
    const init: WriterInit = {
      path: this.options.path,
      endpoint: channel.writer,
      ...(this.options.seenPersistMs !== undefined && { seenPersistMs: this.options.seenPersistMs }),
    };
    const worker = new Worker(this.options.script ?? new URL('./writer-thread.js', import.meta.url), {
      workerData: init,
      transferList: [channel.writer],
    });
    this.starts++;
    return new Promise<Worker>((resolve, reject) => {
      let started = false;
      worker.on('message', (reply: WriterReply) => {
        if (isDone(reply)) {
          this.settle(worker, reply[0], unpackDone(reply));
        } else if (reply.type === 'ready') {
          started = true;
          this.worker = worker;
          if (this.pending.size === 0) worker.unref();
          this.client.replace(channel.caller);
          for (const listener of this.listeners) this.attach(worker, listener);
          resolve(worker);
        } else if (reply.type === 'fatal') {
          reject(new VigilError('STORE_FAILURE', `journal writer cannot start: ${reply.error}`));
        } else {
          this.onReply(worker, reply);
        }
      });
      worker.on('error', (err) => {
        this.options.logger.error('journal writer thread error', { error: describeError(err) });
        if (!started)
          reject(
            new VigilError('STORE_FAILURE', `journal writer cannot start: ${describeError(err)}`, [], { cause: err }),
          );
      });
      worker.on('exit', (code) => {
        if (!started) reject(new VigilError('STORE_FAILURE', `journal writer exited while starting (code ${code})`));
        this.onExit(worker, code);
      });
    });
  }

  private onReply(worker: Worker, reply: Exclude<WriterReply, DoneReply>): void {
    if (reply.type === 'closed') {
      if (reply.error)
        this.options.logger.error('journal writer could not write the last sightings', { error: reply.error });
      this.onClosed?.();
      this.onClosed = null;
      return;
    }
    if (reply.type === 'pong') {
      if (this.outstandingPing?.seq === reply.seq) this.outstandingPing = null;
      return;
    }
    if (reply.type === 'failed') this.settle(worker, reply.seq, new VigilError(reply.code, reply.error));
  }

  /** A batch's answer: what it committed, or why it did not. */
  private settle(worker: Worker, seq: number, outcome: WireResult | VigilError): void {
    const pending = this.pending.get(seq);
    if (!pending) return;
    this.pending.delete(seq);
    if (this.pending.size === 0) worker.unref();
    if (outcome instanceof VigilError) {
      pending.reject(outcome);
      return;
    }
    this.deaths = 0;
    this.lastCommitAt = Date.now();
    this.commits++;
    pending.resolve(outcome);
  }

  private onExit(worker: Worker, code: number): void {
    if (this.worker === worker) {
      this.worker = null;
      this.client.replace(null);
      for (const listener of this.listeners) listener(null);
    }
    this.ready = null;
    this.outstandingPing = null;
    this.onClosed?.();
    this.onClosed = null;
    const failed = [...this.pending.values()];
    this.pending.clear();
    if (this.closing && failed.length === 0) return;
    this.deaths++;
    const delay = RESTART_DELAYS_MS[Math.min(this.deaths, RESTART_DELAYS_MS.length - 1)]!;
    this.notBefore = Date.now() + delay;
    this.options.logger.error('journal writer thread exited; started again on the next batch', {
      code,
      in_flight: failed.length,
      restart_delay_ms: delay,
    });
    const err = new VigilError(
      'STORE_FAILURE',
      `journal writer thread exited (code ${code}) before its commit was confirmed`,
    );
    for (const p of failed) p.reject(err);
  }
}
