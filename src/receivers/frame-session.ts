/**
 * The one protocol session every framed receiver feeds (docs/receivers.md §Sessions), over a
 * FrameChannel (frame-channel.ts): a stream (feed(chunk), TCP and serial lines) or datagrams
 * (feedDatagram, UDP). It speaks the receiver's FrameRules: DC-09 (Dc09Rules) or the MLR2
 * computer-port feed (Mlr2Rules). No socket inside (aedes lib/client.js style), so tests drive it
 * without sockets. Rules:
 *   - a stream has one framer from its rules; one read is never assumed to be one frame;
 *   - every frame goes through the same decision (`decide`), whatever carried it;
 *   - an ACKable frame's reply is written only after its events are committed (SIA DC-09
 *     §5.5.3: the ACK tells the transmitter the receiver took over);
 *   - on a stream, replies keep the order of the frames although commits are batched
 *     (ReplyQueue); datagrams are independent (§5.3) and each is answered on its own;
 *   - a frame rejected by the framer (CRC, length, format) gets the rules' `rejectReply`: none
 *     for DC-09 (§5.5.1.2: the transmitter times out and repeats), a NAK for MLR2;
 *   - "VL-" bodies belong to the device link (docs/device-link.md) where the channel serves it;
 *     they never get a DC-09 reply;
 *   - backpressure: a stream pauses reading while too many frames await their commit or while the
 *     peer does not read its replies; datagrams beyond that many are dropped unanswered (the
 *     transmitter repeats them). Memory stays bounded either way.
 */
import { quirkMask } from '../core/dc09-quirks.js';
import { decodeDatagram, type FramerItem } from '../protocols/dc09/frame.js';
import type { IngestItem, IngestResult, IngestSink, LinkedDevice, SessionLog } from '../ingest/types.js';
import type { FrameChannel } from './frame-channel.js';
import { LinkEndpoint } from './link-endpoint.js';
import { ReplyQueue, type ReplySlot } from './reply-queue.js';
import type { SessionDeps, StreamFramer } from './session-deps.js';

/**
 * A batch built from one chunk or datagram: the items for the ingest, their reply slots and
 * (datagrams) peers. It is also the ingest's sink for them (one object per read, no promise).
 */
class Batch<Peer> implements IngestSink {
  readonly items: IngestItem[] = [];
  readonly slots: ReplySlot[] = [];
  readonly peers: Peer[] = [];
  private readonly session: FrameSession<Peer>;

  constructor(session: FrameSession<Peer>) {
    this.session = session;
  }

  committed(results: IngestResult[]): void {
    this.session.committed(this, results);
  }

  failed(): void {
    this.session.failed(this);
  }
}

export class FrameSession<Peer = void> {
  readonly log: SessionLog;
  private readonly channel: FrameChannel<Peer>;
  private readonly deps: SessionDeps;
  private readonly framer: StreamFramer;
  private readonly replies = new ReplyQueue();
  private readonly link: LinkEndpoint | null;
  private readonly sessionRows: boolean;
  private batch: Batch<Peer> | null = null;
  private inFlight = 0;
  private writeBlocked = false;
  private paused = false;
  private closed = false;
  /** A frame of this stream was ACKed (StreamChannel.trusted told). */
  private trusted = false;
  private readonly writeOut = (data: Buffer): void => this.write(data);

  /** `remoteAddress` names the stream's peer; for datagrams each one carries its own. */
  constructor(channel: FrameChannel<Peer>, deps: SessionDeps) {
    this.channel = channel;
    this.deps = deps;
    this.framer = deps.rules.createFramer();
    const stream = channel.framing === 'stream';
    const remoteAddress = stream ? channel.remoteAddress : '';
    this.sessionRows = stream && channel.sessionRows;
    this.log = {
      id: null,
      objectId: null,
      connectedAt: deps.clock.now(),
      remoteAddress,
      events: 0,
      bytesIn: 0,
      bytesOut: 0,
      closed: false,
    };
    this.link =
      stream && deps.deviceLink
        ? new LinkEndpoint(
            deps,
            deps.deviceLink,
            remoteAddress,
            channel.transport,
            (frame) => this.sendUnordered(frame),
            channel.source,
          )
        : null;
  }

  /** The device this connection identified itself as (VL-HELLO), if any. */
  get device(): LinkedDevice | null {
    return this.link?.device ?? null;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Bytes the framer skipped outside any frame (garbage on a serial line). */
  get discardedBytes(): number {
    return this.framer.discardedBytes;
  }

  /** Frames read but not answered yet (awaiting commit, or behind one that is). */
  get pendingReplies(): number {
    return this.channel.framing === 'stream' ? this.replies.length : this.inFlight;
  }

  /** Stream channels: the next bytes, cut into frames here. */
  feed(chunk: Buffer): void {
    if (this.closed) return;
    this.log.bytesIn += chunk.length;
    const frames = this.framer.push(chunk);
    if (frames.length === 0) return;
    const now = this.deps.clock.now();
    const remoteAddress = this.log.remoteAddress;
    const source = this.channel.framing === 'stream' ? this.channel.source : undefined;
    for (const frame of frames) this.take(frame, now, remoteAddress, undefined as Peer, source);
    this.commitBatch();
    this.flushReplies();
  }

  /**
   * Datagram channels: exactly one frame (SIA DC-09 §5.3), from `remoteAddress` (counted under `source`,
   * src/core/source-key.ts), answered through `peer`.
   */
  feedDatagram(datagram: Buffer, remoteAddress: string, peer: Peer, source?: string): void {
    if (this.closed) return;
    this.log.bytesIn += datagram.length;
    this.take(
      decodeDatagram(datagram, undefined, this.deps.rules.frameTolerances),
      this.deps.clock.now(),
      remoteAddress,
      peer,
      source,
    );
    this.commitBatch();
  }

  /** The one decision path: what to do with a frame, whatever carried it. */
  private take(frame: FramerItem, now: number, remoteAddress: string, peer: Peer, source: string | undefined): void {
    const { counters, rules } = this.deps;
    if (frame.kind === 'rejected') {
      counters.rejected++;
      if (rules.rejectReply) this.answerNow(rules.rejectReply, peer);
      return;
    }
    counters.frames++;
    const decision = rules.decide(frame.body, now, frame.quirks);
    const messageQuirks = decision.message?.quirks;
    let quirks = 0;
    if (frame.quirks !== undefined) {
      counters.countQuirks(frame.quirks);
      quirks |= quirkMask(frame.quirks);
    }
    if (messageQuirks !== undefined) {
      counters.countQuirks(messageQuirks);
      quirks |= quirkMask(messageQuirks);
    }
    switch (decision.action) {
      case 'ack':
        if (this.channel.framing === 'datagram' && this.inFlight >= this.deps.maxInFlight) {
          counters.dropped++;
          return;
        }
        if (!this.admitObject(decision.message?.account ?? null, source)) {
          counters.refusedNewObject++;
          return;
        }
        if (decision.linkTest) counters.linkTests++;
        if (decision.replayed) counters.replays++;
        this.enqueue(
          {
            kind: 'frame',
            receiver: rules.ref,
            transport: this.channel.transport,
            remoteAddress,
            receivedAt: now,
            session: this.sessionRows ? this.log : null,
            raw: frame.raw,
            events: decision.events,
            linkTest: decision.linkTest === true,
            account: decision.message?.account ?? null,
            device: this.link?.device ?? null,
            quirks,
          },
          decision.reply,
          peer,
        );
        return;
      case 'nak':
        counters.naks++;
        this.answerNow(decision.reply, peer);
        return;
      case 'duh':
        counters.duhs++;
        this.answerNow(decision.reply, peer);
        return;
      case 'ignore':
        if (decision.foreign) {
          if (this.link) this.link.receive(frame.body, now, this);
          else counters.linkIgnored++;
        }
        return;
    }
  }

  /**
   * A frame that would create an object (an account never seen) needs an allowance of its source, its
   * receiver and the gateway (new-object-gate.ts); without one it is dropped unanswered and nothing is
   * stored (SIA DC-09 §5.5.1.2: the transmitter repeats it later). Serial lines have no source: not asked.
   */
  private admitObject(account: string | null, source: string | undefined): boolean {
    const gate = this.deps.newObjects;
    if (gate === undefined || source === undefined || account === null) return true;
    return gate.admit(this.deps.rules.ref.id, account, this.link?.device ?? null, source);
  }

  /** Queues an item for the ingest with the reply to write after its commit (LinkEndpoint uses it for HELLO). */
  enqueue(item: IngestItem, reply: Buffer | null, peer?: Peer): ReplySlot {
    const slot =
      this.channel.framing === 'stream' ? this.replies.push(reply, false) : { reply, ready: false, after: null };
    const batch = (this.batch ??= new Batch(this));
    batch.items.push(item);
    batch.slots.push(slot);
    if (this.channel.framing === 'datagram') batch.peers.push(peer as Peer);
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

  /** The channel ended: pending replies are dropped, the device link detached, the session row closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.replies.clear();
    this.framer.reset();
    this.link?.close();
    const log = this.log;
    // A connection that never identified a device and has nothing queued has no row to close.
    if (this.sessionRows && (log.objectId !== null || this.inFlight > 0))
      this.deps.ingest.closeSession(log, this.deps.clock.now());
    else log.closed = true;
  }

  private answerNow(reply: Buffer | null, peer: Peer): void {
    if (this.channel.framing === 'stream') {
      this.replies.push(reply, true);
      return;
    }
    if (reply) this.channel.reply(reply, peer);
  }

  private commitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = null;
    this.deps.ingest.submitTo(batch.items, batch);
    this.updatePause();
  }

  /** The batch's frames are committed (its sink calls this): count, hand over, reply in order. */
  committed(batch: Batch<Peer>, results: IngestResult[]): void {
    const counters = this.deps.counters;
    const channel = this.channel;
    for (let i = 0; i < batch.items.length; i++) {
      const item = batch.items[i]!;
      const slot = batch.slots[i]!;
      let settled = false;
      if (item.kind === 'frame') {
        counters.acks++;
        counters.events += results[i]!.eventIds.length;
        this.deps.rules.journaled?.(item.events, this.deps.clock.now());
        if (!this.trusted) this.trust();
        settled = item.account !== null && this.deps.newObjects?.settled(item.receiver.id, item.account) === true;
        if (settled && channel.framing === 'stream') channel.settled?.();
      } else {
        const storing = this.link?.welcomed(results[i]!, slot);
        // A welcomed HELLO is a valid frame too: a linked device may stay silent until its next NULL.
        if (!this.trusted && results[i]!.objectId !== null) this.trust();
        if (storing) {
          // Its enrolled key is being stored: the reply (and every one after it) waits for that (stream only).
          void storing.then(() => {
            slot.ready = true;
            this.flushReplies();
          });
          continue;
        }
      }
      slot.ready = true;
      if (channel.framing === 'datagram') {
        const peer = batch.peers[i]!;
        if (slot.reply) channel.reply(slot.reply, peer);
        channel.acked?.(peer, settled);
      }
    }
    this.settle(batch.items.length);
  }

  /** The transaction failed: no ACK for these frames (the device retransmits), order kept for the rest. */
  failed(batch: Batch<Peer>): void {
    for (let i = 0; i < batch.items.length; i++) {
      const slot = batch.slots[i]!;
      slot.reply = null;
      slot.ready = true;
      if (batch.items[i]!.kind === 'hello') this.link?.helloFailed();
    }
    this.settle(batch.items.length);
  }

  private trust(): void {
    this.trusted = true;
    if (this.channel.framing === 'stream') this.channel.trusted?.();
  }

  private settle(count: number): void {
    this.inFlight -= count;
    if (this.closed) return;
    this.flushReplies();
    this.updatePause();
  }

  private flushReplies(): void {
    if (this.closed || this.channel.framing === 'datagram') return;
    this.replies.flush(this.writeOut);
    this.updatePause();
  }

  private write(data: Buffer): void {
    this.log.bytesOut += data.length;
    if (this.channel.framing === 'stream' && !this.channel.write(data)) this.writeBlocked = true;
  }

  /** Device-link frames to the device go out at once, outside the reply order. */
  private sendUnordered(frame: Buffer): boolean {
    if (this.closed) return false;
    this.write(frame);
    return true;
  }

  private updatePause(): void {
    const channel = this.channel;
    if (this.closed || channel.framing === 'datagram') return;
    const limit = this.deps.maxInFlight;
    // Hysteresis: resume only well below the limit so a busy device does not flap.
    const full = this.writeBlocked || this.inFlight >= limit || (this.paused && this.inFlight > limit >> 1);
    if (full && !this.paused) {
      this.paused = true;
      channel.pause();
    } else if (!full && this.paused) {
      this.paused = false;
      channel.resume();
    }
  }
}
