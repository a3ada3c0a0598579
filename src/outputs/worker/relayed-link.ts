/**
 * A serial (type 3) output's link inside the output worker: a ByteLink whose line is the main thread's. serialport's
 * native poller cannot serve two threads of one process, and the main thread's serial port layer already owns every
 * line (COM receivers, modems), so the worker never opens a device: it asks the host (serial-link-host.ts) to
 * connect, write and close, and hears back the bytes read and the line lost (docs/outputs.md §Threads). The output
 * itself (outbox, ACK timeout, retries, supervision, failed state) runs here like every other.
 */
import { VigilError } from '../../core/errors.js';
import type { ByteLink } from '../byte-link.js';
import type { LinkHostMessage, LinkWorkerMessage } from './messages.js';

type Post = (message: LinkWorkerMessage) => void;

export class RelayedLink implements ByteLink {
  readonly framing = 'stream' as const;
  readonly description: string;
  private readonly output: number;
  private readonly post: Post;
  private isConnected = false;
  private seq = 0;
  /** Connects and closes awaiting the host's answer, by seq. */
  private readonly waiting = new Map<number, (error: string | null) => void>();
  private dataListener: (chunk: Buffer) => void = () => undefined;
  private closeListener: (reason: string) => void = () => undefined;

  constructor(output: number, description: string, post: Post) {
    this.output = output;
    this.description = description;
    this.post = post;
  }

  get connected(): boolean {
    return this.isConnected;
  }

  async connect(): Promise<void> {
    if (this.isConnected) return;
    const error = await this.ask('link-connect');
    if (error !== null) throw new VigilError('SERVICE_FAILED', error);
    this.isConnected = true;
  }

  write(bytes: Buffer): void {
    if (!this.isConnected) throw new VigilError('SERVICE_FAILED', `${this.description} is not open`);
    this.post({ type: 'link-write', output: this.output, bytes });
  }

  onData(listener: (chunk: Buffer) => void): void {
    this.dataListener = listener;
  }

  onClose(listener: (reason: string) => void): void {
    this.closeListener = listener;
  }

  async close(): Promise<void> {
    this.isConnected = false;
    await this.ask('link-close');
  }

  /** A message from the host about this link. */
  receive(message: LinkHostMessage): void {
    switch (message.type) {
      case 'link-data':
        this.dataListener(Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength));
        return;
      case 'link-lost':
        if (!this.isConnected) return;
        this.isConnected = false;
        this.closeListener(message.reason);
        return;
      case 'link-connected':
        this.settle(message.seq, message.error);
        return;
      case 'link-closed':
        this.settle(message.seq, null);
        return;
    }
  }

  private ask(type: 'link-connect' | 'link-close'): Promise<string | null> {
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.waiting.set(seq, resolve);
      this.post({ type, output: this.output, seq });
    });
  }

  private settle(seq: number, error: string | null): void {
    const waiter = this.waiting.get(seq);
    this.waiting.delete(seq);
    waiter?.(error);
  }
}

/** The worker's relayed links by output id: routes the host's link messages to them. */
export class RelayedLinks {
  private readonly post: Post;
  private readonly links = new Map<number, RelayedLink>();

  constructor(post: Post) {
    this.post = post;
  }

  link(output: number, description: string): RelayedLink {
    const link = new RelayedLink(output, description, this.post);
    this.links.set(output, link);
    return link;
  }

  receive(message: LinkHostMessage): void {
    this.links.get(message.output)?.receive(message);
  }
}
