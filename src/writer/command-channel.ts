/**
 * How a thread that is not the writer sends it a write command and waits for the answer
 * (docs/store.md §One writer). The call is synchronous, like the better-sqlite3 write it replaces,
 * so callers stay as they are: the command goes out on a MessagePort, the caller sleeps in
 * Atomics.wait on a shared flag the writer sets after posting the reply, then takes the reply with
 * receiveMessageOnPort (no event-loop turn needed). The writer never waits for anyone, so this
 * cannot deadlock; a writer that does not answer within the timeout is a STORE_FAILURE.
 *
 * One endpoint per calling thread (a thread makes one call at a time): the main thread's, and one
 * per output worker.
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { VigilError } from '../core/errors.js';
import {
  fromWireError,
  toWireError,
  type WireError,
  type WriteCall,
  type WriteCommand,
  type WriteResult,
} from './write-commands.js';

/** One side of a channel: the port, and the flag both sides share. */
export interface WriterEndpoint {
  readonly port: MessagePort;
  readonly signal: SharedArrayBuffer;
}

type Request = { readonly id: number; readonly command: WriteCommand };
type Reply =
  | { readonly id: number; readonly ok: true; readonly value: unknown }
  | { readonly id: number; readonly ok: false; readonly error: WireError };

/** How long a caller waits for the writer (a commit in progress, a bounded retention batch). */
export const WRITE_CALL_TIMEOUT_MS = 10_000;

/** A channel: `writer` goes to the writer thread (serveWrites), `caller` to the thread that calls. */
export function writerChannel(): { writer: WriterEndpoint; caller: WriterEndpoint } {
  const { port1, port2 } = new MessageChannel();
  const signal = new SharedArrayBuffer(4);
  return { writer: { port: port1, signal }, caller: { port: port2, signal } };
}

/** The writer's side: answers every command arriving on `endpoint` with `execute`. */
export function serveWrites(endpoint: WriterEndpoint, execute: (command: WriteCommand) => unknown): void {
  const flag = new Int32Array(endpoint.signal);
  endpoint.port.on('message', (request: Request) => {
    let reply: Reply;
    try {
      reply = { id: request.id, ok: true, value: execute(request.command) };
    } catch (err) {
      reply = { id: request.id, ok: false, error: toWireError(err) };
    }
    // The reply is in the port's queue before the flag moves: the caller reads it at once.
    endpoint.port.postMessage(reply);
    Atomics.store(flag, 0, request.id);
    Atomics.notify(flag, 0);
  });
}

/** The calling side. */
export class WriteClient {
  private endpoint: WriterEndpoint | null;
  private flag: Int32Array | null;
  private nextId = 1;
  private readonly timeoutMs: number;

  constructor(endpoint: WriterEndpoint | null, timeoutMs = WRITE_CALL_TIMEOUT_MS) {
    this.endpoint = endpoint;
    this.flag = endpoint ? new Int32Array(endpoint.signal) : null;
    this.timeoutMs = timeoutMs;
    // Replies are taken synchronously (receiveMessageOnPort): the port must not hold the thread open.
    endpoint?.port.unref();
  }

  /** A new writer thread, a new channel (the old port died with the old thread); null: no writer now. */
  replace(endpoint: WriterEndpoint | null): void {
    this.endpoint?.port.close();
    this.endpoint = endpoint;
    this.flag = endpoint ? new Int32Array(endpoint.signal) : null;
    endpoint?.port.unref();
  }

  readonly call: WriteCall = <C extends WriteCommand>(command: C): WriteResult<C> =>
    this.send(command, this.timeoutMs) as WriteResult<C>;

  /** Like call, with its own timeout (the write probe must not hold the API up for long). */
  send(command: WriteCommand, timeoutMs: number): unknown {
    const endpoint = this.endpoint;
    const flag = this.flag;
    if (!endpoint || !flag) throw new VigilError('STORE_UNAVAILABLE', 'the database writer is not running');
    const id = this.nextId++;
    // Ids wrap long before 2^31; the flag only ever needs to differ from the previous one.
    if (this.nextId >= 0x7fffffff) this.nextId = 1;
    endpoint.port.postMessage({ id, command } satisfies Request);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const reply = this.take(endpoint, id);
      if (reply) {
        if (reply.ok) return reply.value;
        throw fromWireError(reply.error);
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      const seen = Atomics.load(flag, 0);
      if (seen !== id) Atomics.wait(flag, 0, seen, Math.min(left, 1000));
    }
    throw new VigilError(
      'STORE_FAILURE',
      `the database writer did not answer ${command.repo}.${command.method} within ${timeoutMs} ms`,
    );
  }

  /** The reply to `id` if it is there; older replies (of calls that timed out) are dropped. */
  private take(endpoint: WriterEndpoint, id: number): Reply | null {
    for (;;) {
      const message = receiveMessageOnPort(endpoint.port);
      if (!message) return null;
      const reply = message.message as Reply;
      if (reply.id === id) return reply;
    }
  }
}
