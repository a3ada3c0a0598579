/**
 * The DC-09 transmitter of one simulated panel, independent of the transport: which message goes
 * next, its sequence number, what is in flight, and what each receiver reply means.
 * No sockets and no timers: the owner calls send() through the `send` callback, feeds replies to
 * onReply(), calls tick() periodically for the ACK deadlines and opens/closes the path.
 *
 * Rules (SIA DC-09 §5.5.2, §5.5.3; choices in docs/simulator.md §Transmitter):
 *   - sequence numbers 0001..9999 then 0001; a retransmission keeps its sequence number and data
 *     but gets a fresh timestamp (so it still passes the receiver's time window);
 *   - ACK (or *ACK that opens with the key) completes the message with the same sequence;
 *   - NAK carries no sequence (§5.5.3.2: "NAK"0000R0L0A0): it answers the oldest message in flight;
 *     the panel sets its clock from the NAK's timestamp and sends the message again;
 *   - DUH: the receiver cannot process the message; sending it again would not help: dropped;
 *   - no reply within ackTimeoutMs: sent again, at most maxRetries times, then given up;
 *   - the path closes: messages in flight are sent again once it reopens (same bound).
 */
import type { RandomBytes } from '../protocols/dc09/crypto.js';
import type { ParsedReply } from '../protocols/dc09/replies.js';
import type { DeviceClock } from './device-clock.js';
import type { EventBudget } from './event-budget.js';
import { eventFrame, linkTestFrame, nextSequence, sequenceText, type FrameHeader } from './event-data.js';
import type { SimStats } from './sim-stats.js';

export interface TransmitterConfig {
  readonly header: FrameHeader;
  readonly window: number;
  readonly ackTimeoutMs: number;
  readonly maxRetries: number;
  /** Take a new event from the budget whenever the window has room. */
  readonly saturate: boolean;
  readonly maxQueue: number;
}

export interface TransmitterDeps {
  readonly stats: SimStats;
  readonly budget: EventBudget;
  readonly clock: DeviceClock;
  /** Monotonic milliseconds (performance.now) for latency and deadlines. */
  readonly monotonic: () => number;
  /** Writes one frame; returns false when the path wants no more for now (backpressure). */
  readonly send: (frame: Buffer) => boolean;
  readonly randomBytes?: RandomBytes;
  /** Each ACKed event (tests check these against the receiver's journal). */
  readonly onAck?: (sequence: string, n: number) => void;
}

interface Message {
  readonly kind: 'event' | 'link-test';
  readonly sequence: string;
  /** Event number within this device (chooses the data); 0 for link tests. */
  readonly n: number;
  attempts: number;
  firstSentAt: number;
  deadline: number;
}

export class Transmitter {
  private readonly config: TransmitterConfig;
  private readonly deps: TransmitterDeps;
  private readonly inFlight: Message[] = [];
  private readonly resend: Message[] = [];
  private queued = 0;
  private linkTestDue = false;
  private sequence = 0;
  private eventNo = 0;
  private open = false;
  private draining = false;

  constructor(config: TransmitterConfig, deps: TransmitterDeps) {
    this.config = config;
    this.deps = deps;
  }

  /** No message in flight, none waiting. */
  get idle(): boolean {
    return this.inFlight.length === 0 && this.resend.length === 0 && this.queued === 0 && !this.linkTestDue;
  }

  get outstanding(): number {
    return this.inFlight.length + this.resend.length + this.queued + (this.linkTestDue ? 1 : 0);
  }

  /** The path is usable (connected and writable) or not. */
  setOpen(open: boolean): void {
    this.open = open;
    if (open) this.pump();
  }

  /** Paced events: queue `count` more, each taken from the budget. */
  enqueueEvents(count: number): void {
    for (let i = 0; i < count; i++) {
      if (this.queued >= this.config.maxQueue) {
        this.deps.stats.eventsDropped++;
        continue;
      }
      if (!this.deps.budget.take()) break;
      this.queued++;
    }
    this.pump();
  }

  requestLinkTest(): void {
    if (this.draining) return;
    this.linkTestDue = true;
    this.pump();
  }

  /** No new messages from now on; messages already started may still be completed. */
  drain(): void {
    this.draining = true;
    this.queued = 0;
    this.linkTestDue = false;
  }

  /** The path closed: whatever was in flight goes again on the next connection (bounded). */
  pathClosed(): void {
    this.open = false;
    const lost = this.inFlight.splice(0);
    for (const message of lost) this.retry(message);
  }

  /** Expires ACK deadlines; `now` is monotonic ms. */
  tick(now: number): void {
    for (let i = 0; i < this.inFlight.length; ) {
      const message = this.inFlight[i]!;
      if (now < message.deadline) {
        i++;
        continue;
      }
      this.inFlight.splice(i, 1);
      this.deps.stats.ackTimeouts++;
      this.retry(message);
    }
    this.pump();
  }

  onReply(reply: ParsedReply): void {
    const stats = this.deps.stats;
    if (reply.kind === 'NAK') {
      stats.naks++;
      const message = this.inFlight.shift();
      if (!message) {
        stats.unmatchedReplies++;
        return;
      }
      if (reply.timestamp !== null) this.deps.clock.setTo(reply.timestamp);
      this.retry(message);
      this.pump();
      return;
    }
    const index = this.inFlight.findIndex((m) => m.sequence === reply.sequence);
    if (index < 0 || reply.kind === 'RSP' || !this.sameAccount(reply)) {
      stats.unmatchedReplies++;
      return;
    }
    if (reply.encrypted && !reply.opened) {
      // An *ACK we cannot open could come from anyone: the message stays in flight.
      stats.unopenedReplies++;
      return;
    }
    const message = this.inFlight.splice(index, 1)[0]!;
    if (reply.kind === 'DUH') {
      stats.duhs++;
      this.fail(message);
    } else if (message.kind === 'event') {
      stats.recordAck(this.deps.monotonic() - message.firstSentAt);
      this.deps.onAck?.(message.sequence, message.n);
    } else {
      stats.linkTestsAcked++;
    }
    this.pump();
  }

  /** Messages that will never complete now (run over): counted as unanswered. */
  abandon(): number {
    const count = this.inFlight.length + this.resend.length;
    this.inFlight.length = 0;
    this.resend.length = 0;
    this.queued = 0;
    this.linkTestDue = false;
    return count;
  }

  private sameAccount(reply: ParsedReply): boolean {
    return reply.account === undefined || reply.account.toUpperCase() === this.config.header.account;
  }

  private pump(): void {
    const { window, saturate } = this.config;
    while (this.open && this.inFlight.length < window) {
      let message = this.resend.shift();
      if (!message && !this.draining) {
        if (this.linkTestDue) {
          this.linkTestDue = false;
          message = this.create('link-test');
        } else if (this.queued > 0) {
          this.queued--;
          message = this.create('event');
        } else if (saturate && this.deps.budget.take()) {
          message = this.create('event');
        }
      }
      if (!message) return;
      this.transmit(message);
    }
  }

  private create(kind: Message['kind']): Message {
    this.sequence = nextSequence(this.sequence);
    const n = kind === 'event' ? this.eventNo++ : 0;
    return { kind, sequence: sequenceText(this.sequence), n, attempts: 0, firstSentAt: 0, deadline: 0 };
  }

  private transmit(message: Message): void {
    const { stats, monotonic, clock, randomBytes } = this.deps;
    const now = monotonic();
    const moment = { sequence: message.sequence, time: clock.now(), ...(randomBytes ? { randomBytes } : {}) };
    const frame =
      message.kind === 'event'
        ? eventFrame(this.config.header, moment, message.n)
        : linkTestFrame(this.config.header, moment);
    if (message.attempts === 0) {
      message.firstSentAt = now;
      if (message.kind === 'event') stats.eventsSent++;
      else stats.linkTestsSent++;
    } else {
      stats.retransmits++;
    }
    message.attempts++;
    message.deadline = now + this.config.ackTimeoutMs;
    this.inFlight.push(message);
    if (!this.deps.send(frame)) this.open = false;
  }

  private retry(message: Message): void {
    if (this.draining) {
      // The run is over: no second chance, and not the receiver's failure either.
      this.deps.stats.unanswered++;
      return;
    }
    if (message.attempts > this.config.maxRetries) {
      this.fail(message);
      return;
    }
    this.resend.push(message);
  }

  private fail(message: Message): void {
    if (message.kind === 'event') this.deps.stats.eventsFailed++;
    else this.deps.stats.linkTestsFailed++;
  }
}
