/**
 * How a thread that is not the writer sends it a write command (docs/store.md §One writer): the
 * command goes out on a MessagePort with an id, and the call returns a Promise that the writer's
 * reply of the same id settles, on the caller's event loop. Nothing waits synchronously, so the
 * caller's timers, sockets and other work go on while the writer commits. A writer that does not
 * answer within the timeout is a STORE_FAILURE; its late reply is dropped.
 *
 * One endpoint per calling thread: the main thread's, and one per output worker.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { CommandOutcome } from './command-group.js';
import { VigilError } from '../core/errors.js';
import {
  fromWireError,
  toWireError,
  type WireError,
  type WriteCommand,
  type WriteResult,
} from '../store/write-commands.js';

/** One side of a channel (a MessagePort: transferable to another thread). */
export type WriterEndpoint = MessagePort;

type Request = { readonly id: number; readonly command: WriteCommand };
type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

interface Waiting {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  readonly timer: NodeJS.Timeout;
}

/** How long a caller waits for the writer (a commit in progress, a bounded retention batch). */
export const WRITE_CALL_TIMEOUT_MS = 10_000;

/** A channel: `writer` goes to the writer thread (serveWrites), `caller` to the thread that calls. */
export function writerChannel(): { writer: WriterEndpoint; caller: WriterEndpoint } {
  const { port1, port2 } = new MessageChannel();
  return { writer: port1, caller: port2 };
}

/**
 * The writer's side: hands every command arriving on `endpoint` to `run`, in order, and answers it
 * with the outcome `run` reports (command-group.ts commits the commands of one turn together).
 */
export function serveWrites(
  endpoint: WriterEndpoint,
  run: (command: WriteCommand, answer: (outcome: CommandOutcome) => void) => void,
): void {
  endpoint.on('message', (request: Request) => {
    run(request.command, (outcome) => {
      const reply: Reply = outcome.ok
        ? { id: request.id, ok: true, value: outcome.value }
        : { id: request.id, ok: false, error: toWireError(outcome.error) };
      endpoint.postMessage(reply);
    });
  });
}

/** The calling side. */
export class WriteClient {
  private endpoint: WriterEndpoint | null = null;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly onReply = (reply: Reply): void => this.settle(reply);

  constructor(endpoint: WriterEndpoint | null, timeoutMs = WRITE_CALL_TIMEOUT_MS) {
    this.timeoutMs = timeoutMs;
    this.replace(endpoint);
  }

  /**
   * A new writer thread, a new channel (the old port died with the old thread); null: no writer now.
   * Commands still waiting on the old channel fail: their writer is gone.
   */
  replace(endpoint: WriterEndpoint | null): void {
    const old = this.endpoint;
    if (old) {
      old.off('message', this.onReply);
      old.close();
    }
    this.endpoint = endpoint;
    this.failWaiting(new VigilError('STORE_FAILURE', 'the database writer stopped before it answered'));
    if (!endpoint) return;
    endpoint.on('message', this.onReply);
    // A port with a listener keeps its thread alive: only while an answer is awaited.
    endpoint.unref();
  }

  /** Sends `command`; settles with the writer's answer, or STORE_FAILURE after `timeoutMs`. */
  send<C extends WriteCommand>(command: C, timeoutMs = this.timeoutMs): Promise<WriteResult<C>> {
    const endpoint = this.endpoint;
    if (!endpoint) return Promise.reject(new VigilError('STORE_UNAVAILABLE', 'the database writer is not running'));
    const id = this.nextId++;
    if (this.nextId >= Number.MAX_SAFE_INTEGER) this.nextId = 1;
    return new Promise<WriteResult<C>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.forget(id);
        reject(
          new VigilError(
            'STORE_FAILURE',
            `the database writer did not answer ${command.repo}.${command.method} within ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      if (this.waiting.size === 1) endpoint.ref();
      endpoint.postMessage({ id, command } satisfies Request);
    });
  }

  /** Commands sent and not answered yet. */
  get outstanding(): number {
    return this.waiting.size;
  }

  private settle(reply: Reply): void {
    const waiting = this.forget(reply.id);
    if (!waiting) return; // timed out already
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(fromWireError(reply.error));
  }

  private forget(id: number): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.endpoint?.unref();
    return waiting;
  }

  private failWaiting(err: VigilError): void {
    const all = [...this.waiting.values()];
    for (const waiting of all) clearTimeout(waiting.timer);
    this.waiting.clear();
    for (const waiting of all) waiting.reject(err);
  }
}
