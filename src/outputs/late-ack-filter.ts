/**
 * The late-ACK rule of the one-byte ACK protocols (MLR2, Ademco 685; docs/outputs.md §Replies and the late-ACK rule).
 * Their ACKs carry no reference to the message they answer. When copies of a message went unanswered before one was
 * ACKed, late ACKs of those copies may still be on their way; taking one of them for the ACK of the NEXT message would
 * lose that message. Such surplus ACKs are swallowed for one ACK timeout: the worst case is then a duplicate (the next
 * message is sent again), never a loss.
 */
export type AckNak = 'ack' | 'nak';

export class LateAckFilter {
  private readonly ackTimeoutMs: number;
  private surplus = 0;
  private surplusUntil = 0;

  constructor(ackTimeoutMs: number) {
    this.ackTimeoutMs = ackTimeoutMs;
  }

  filter(replies: AckNak[]): AckNak[] {
    if (this.surplus === 0) return replies;
    if (performance.now() > this.surplusUntil) {
      this.surplus = 0;
      return replies;
    }
    const out: AckNak[] = [];
    for (const reply of replies) {
      if (reply === 'ack' && this.surplus > 0) this.surplus--;
      else out.push(reply);
    }
    return out;
  }

  /** A message was ACKed after `unanswered` silent copies on the current link. */
  settled(unanswered: number): void {
    if (unanswered <= 0) return;
    this.surplus = unanswered;
    this.surplusUntil = performance.now() + this.ackTimeoutMs;
  }

  reset(): void {
    this.surplus = 0;
  }
}

export function ackNakVerdict(reply: AckNak): 'ack' | 'nak' {
  return reply === 'ack' ? 'ack' : 'nak';
}
