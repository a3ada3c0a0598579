/**
 * What an output needs from a destination protocol (MLR2, DC-09): the bytes of one event or of one supervision
 * message, and what the peer's replies mean. The sending discipline (one message at a time, ACK timeout, retries,
 * failed state, heartbeat-only, resume) lives in LinkDelivery and the OutputRunner and is the same for every protocol.
 */
import type { LinkFraming } from './byte-link.js';
import type { OutgoingEvent } from './outbox.js';

/**
 * ack: delivered. nak: refused this time, send again (MLR2 NAK; DC-09 NAK after the time test, clock adopted).
 * refused: the peer understood the message and will not process it (DC-09 DUH): sending it again will not help.
 * ignore: not a reply to this message (a stale reply, another sequence number).
 */
export type Verdict = 'ack' | 'nak' | 'refused' | 'ignore';

export interface Exchange<R> {
  /** For logs: "event 1234", "heartbeat", "NULL link test". */
  readonly label: string;
  /** The bytes of the next transmission (DC-09 stamps each one with the current, corrected time). */
  frame(): Buffer;
  reply(reply: R): Verdict;
}

export interface ProtocolDriver<R> {
  /** "MLR2", "MLR2-DG", "SIA-DC09". */
  readonly protocol: string;
  /**
   * True when any ACKed message postpones the next supervision message (DC-09 link tests supervise an idle link);
   * false when supervision runs on a fixed period whatever the traffic (the MLR2 heartbeat, "about every 30 s").
   */
  readonly supervisionOnlyWhenIdle: boolean;
  /** Replies in the bytes the link delivered (the driver frames them). */
  read(chunk: Buffer, framing: LinkFraming): R[];
  /** The exchange for an event, or why the event cannot be sent by this protocol (it is then skipped). */
  event(outgoing: OutgoingEvent): Exchange<R> | { skip: string };
  /** A heartbeat / link test. */
  supervision(): Exchange<R>;
  /**
   * An exchange was ACKed; `unanswered` earlier transmissions of it on the current link got no reply in time (their
   * late replies may still arrive).
   */
  settled(unanswered: number): void;
  /** A new link: forget partial frames and reply bookkeeping of the old one. */
  reset(): void;
  /**
   * Protocols whose messages carry a sequence number the receiver may use to spot duplicates
   * (DC-09): the number of the last ACKed message, stored with the output cursor, and the restore
   * of it at start so a restart continues the count (docs/dc09.md "Output sequence numbers").
   */
  readonly sequence?: { settled(): number; restore(last: number): void };
}
