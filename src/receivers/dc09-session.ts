/**
 * The DC-09 protocol session of one stream connection, over any duplex-like pair: feed(chunk)
 * in, io.write(bytes) out, no socket inside (aedes lib/client.js style), so tests drive it
 * without sockets. Rules (docs/receivers.md §Sessions):
 *   - one Dc09Framer per connection; one read is never assumed to be one frame;
 *   - frames are decided in order; an ACKable frame's reply is written only after its events
 *     are committed (SIA DC-09 §5.5.3: the ACK tells the transmitter the receiver took over);
 *   - replies keep the order of the frames although commits are batched (ReplyQueue);
 *   - a frame rejected by the framer (CRC, length, format) gets NO reply (§5.5.1.2: the
 *     transmitter times out and repeats);
 *   - "VL-" bodies belong to the device link (docs/device-link.md): they never get a DC-09 reply;
 *   - backpressure: reading pauses while too many frames await their commit or while the peer
 *     does not read its replies, so a flooding device cannot grow memory without bound.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { Dc09Framer } from '../protocols/dc09/frame.js';
import type { LinkRegistry } from '../devices/link-registry.js';
import type { EventIngest } from '../ingest/event-ingest.js';
import type { IngestItem, IngestResult, LinkedDevice, SessionLog } from '../ingest/types.js';
import { LinkEndpoint } from './link-endpoint.js';
import type { ReceiverCounters, ReceiverProfile } from './receiver-profile.js';
import { ReplyQueue, type ReplySlot } from './reply-queue.js';

/** The transport side; a net.Socket fits as is. */
export interface SessionIo {
  /** false: the transport's buffer is above its high-water mark; `drained()` follows. */
  write(data: Buffer): boolean;
  pause(): unknown;
  resume(): unknown;
}

export interface SessionDeps {
  readonly profile: ReceiverProfile;
  readonly counters: ReceiverCounters;
  readonly ingest: Pick<EventIngest, 'submit' | 'closeSession'>;
  readonly links: LinkRegistry;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Frames awaiting their commit before reading pauses. */
  readonly maxInFlight: number;
}

/** A batch being built from one chunk: the items for the ingest and their reply slots. */
interface Batch {
  readonly items: IngestItem[];
  readonly slots: ReplySlot[];
}

export class Dc09Session {
  readonly log: SessionLog;
  private readonly io: SessionIo;
  private readonly deps: SessionDeps;
  private readonly framer = new Dc09Framer();
  private readonly replies = new ReplyQueue();
  private readonly link: LinkEndpoint;
  private batch: Batch | null = null;
  private inFlight = 0;
  private writeBlocked = false;
  private paused = false;
  private closed = false;
  private readonly writeOut = (data: Buffer): void => this.write(data);

  constructor(io: SessionIo, remoteAddress: string, deps: SessionDeps) {
    this.io = io;
    this.deps = deps;
    this.log = { id: null, objectId: null, connectedAt: deps.clock.now(), remoteAddress, events: 0, bytesIn: 0, bytesOut: 0, closed: false };
    this.link = new LinkEndpoint(deps, remoteAddress, (frame) => this.sendUnordered(frame));
  }

  /** The device this connection identified itself as (VL-HELLO), if any. */
  get device(): LinkedDevice | null {
    return this.link.device;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Frames read but not answered yet (awaiting commit, or behind one that is). */
  get pendingReplies(): number {
    return this.replies.length;
  }

  feed(chunk: Buffer): void {
    if (this.closed) return;
    this.log.bytesIn += chunk.length;
    const frames = this.framer.push(chunk);
    if (frames.length === 0) return;
    const { counters, profile } = this.deps;
    const now = this.deps.clock.now();
    for (const frame of frames) {
      if (frame.kind === 'rejected') {
        counters.rejected++;
        continue;
      }
      counters.frames++;
      const decision = profile.decide(frame.body, now);
      switch (decision.action) {
        case 'ack':
          if (decision.linkTest) counters.linkTests++;
          this.enqueue({
            kind: 'frame', receiver: profile.ref, transport: 'tcp', remoteAddress: this.log.remoteAddress, receivedAt: now,
            session: this.log, raw: frame.raw, events: decision.events, linkTest: decision.linkTest === true,
            account: decision.message?.account ?? null, device: this.link.device,
          }, decision.reply);
          break;
        case 'nak':
          counters.naks++;
          this.replies.push(decision.reply, true);
          break;
        case 'duh':
          counters.duhs++;
          this.replies.push(decision.reply, true);
          break;
        case 'ignore':
          if (decision.foreign) this.link.receive(frame.body, now, this);
          break;
      }
    }
    const batch = this.batch;
    if (batch) {
      this.batch = null;
      this.commit(batch);
    }
    this.flushReplies();
  }

  /** Queues an item for the ingest with the reply to write after its commit (LinkEndpoint uses it for HELLO). */
  enqueue(item: IngestItem, reply: Buffer | null): ReplySlot {
    const slot = this.replies.push(reply, false);
    const batch = (this.batch ??= { items: [], slots: [] });
    batch.items.push(item);
    batch.slots.push(slot);
    this.inFlight++;
    return slot;
  }

  /** A reply known at once, in frame order (a device-link refusal). */
  replyNow(reply: Buffer): void {
    this.replies.push(reply, true);
  }

  /** The transport's write buffer has room again. */
  drained(): void {
    this.writeBlocked = false;
    this.updatePause();
  }

  /** The connection ended: pending replies are dropped, the device link detached, the session row closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.replies.clear();
    this.framer.reset();
    this.link.close();
    const log = this.log;
    // A connection that never identified a device and has nothing queued has no row to close.
    if (log.objectId !== null || this.inFlight > 0) this.deps.ingest.closeSession(log, this.deps.clock.now());
    else log.closed = true;
  }

  private commit(batch: Batch): void {
    this.deps.ingest.submit(batch.items).then(
      (results) => this.committed(batch, results),
      () => this.failed(batch),
    );
    this.updatePause();
  }

  private committed(batch: Batch, results: IngestResult[]): void {
    const counters = this.deps.counters;
    for (let i = 0; i < batch.items.length; i++) {
      const item = batch.items[i]!;
      const slot = batch.slots[i]!;
      if (item.kind === 'frame') {
        counters.acks++;
        counters.events += results[i]!.eventIds.length;
      } else {
        this.link.welcomed(results[i]!, slot);
      }
      slot.ready = true;
    }
    this.settle(batch.items.length);
  }

  /** The transaction failed: no ACK for these frames (the device retransmits), order kept for the rest. */
  private failed(batch: Batch): void {
    for (let i = 0; i < batch.items.length; i++) {
      const slot = batch.slots[i]!;
      slot.reply = null;
      slot.ready = true;
      if (batch.items[i]!.kind === 'hello') this.link.helloFailed();
    }
    this.settle(batch.items.length);
  }

  private settle(count: number): void {
    this.inFlight -= count;
    if (this.closed) return;
    this.flushReplies();
    this.updatePause();
  }

  private flushReplies(): void {
    if (this.closed) return;
    this.replies.flush(this.writeOut);
    this.updatePause();
  }

  private write(data: Buffer): void {
    this.log.bytesOut += data.length;
    if (!this.io.write(data)) this.writeBlocked = true;
  }

  /** Device-link frames to the device go out at once, outside the reply order. */
  private sendUnordered(frame: Buffer): boolean {
    if (this.closed) return false;
    this.write(frame);
    return true;
  }

  private updatePause(): void {
    if (this.closed) return;
    const limit = this.deps.maxInFlight;
    // Hysteresis: resume only well below the limit so a busy device does not flap.
    const full = this.writeBlocked || this.inFlight >= limit || (this.paused && this.inFlight > limit >> 1);
    if (full && !this.paused) {
      this.paused = true;
      this.io.pause();
    } else if (!full && this.paused) {
      this.paused = false;
      this.io.resume();
    }
  }
}
