/**
 * MLR2 / MLR2-DG as an output protocol: Vigil plays the Sur-Gard receiver, the automation software (Patriot,
 * Manitou, MASterMind, SIMS, ...) answers each line with ACK or NAK (MLR2-DG manual, "Acknowledgment of the
 * signal"). The codec is src/protocols/mlr2; this file maps journal events onto it.
 */
import {
  HEARTBEAT,
  encodeContactId,
  encodeSia,
  readReplies,
  type EncodeResult,
  type Mlr2Reply,
  type Mlr2Route,
  type Mlr2Variant,
} from '../protocols/mlr2/index.js';
import { shapeOf } from './event-shape.js';
import type { OutgoingEvent } from './outbox.js';
import type { Exchange, ProtocolDriver, Verdict } from './protocol-driver.js';

export interface Mlr2DriverOptions {
  readonly variant: Mlr2Variant;
  readonly route: Mlr2Route;
  /** How long a late ACK of an earlier transmission may still arrive (the output's ACK timeout). */
  readonly ackTimeoutMs: number;
}

function verdict(reply: Mlr2Reply): Verdict {
  return reply === 'ack' ? 'ack' : 'nak';
}

export class Mlr2Driver implements ProtocolDriver<Mlr2Reply> {
  readonly protocol: string;
  readonly supervisionOnlyWhenIdle = false;
  private readonly options: Mlr2DriverOptions;
  /**
   * MLR2 ACKs carry no reference to the line they answer. When copies of a line went unanswered before one was
   * ACKed, late ACKs of those copies may still be on their way; taking one of them for the ACK of the NEXT line
   * would lose that line. Such surplus ACKs are swallowed for one ACK timeout: the worst case is then a duplicate
   * (the next line is sent again), never a loss.
   */
  private surplus = 0;
  private surplusUntil = 0;

  constructor(options: Mlr2DriverOptions) {
    this.options = options;
    this.protocol = options.variant;
  }

  read(chunk: Buffer): Mlr2Reply[] {
    const replies = readReplies(chunk);
    if (this.surplus === 0) return replies;
    if (performance.now() > this.surplusUntil) {
      this.surplus = 0;
      return replies;
    }
    const out: Mlr2Reply[] = [];
    for (const reply of replies) {
      if (reply === 'ack' && this.surplus > 0) this.surplus--;
      else out.push(reply);
    }
    return out;
  }

  event(outgoing: OutgoingEvent): Exchange<Mlr2Reply> | { skip: string } {
    const shape = shapeOf(outgoing.event);
    const { variant, route } = this.options;
    let encoded: EncodeResult;
    if (shape.kind === 'cid') {
      encoded = encodeContactId(route, {
        account: outgoing.account,
        qualifier: shape.qualifier,
        code: shape.code,
        group: shape.group,
        zone: shape.zone,
      });
    } else if (shape.kind === 'sia') {
      encoded = encodeSia(variant, route, {
        account: outgoing.account,
        code: shape.code,
        group: shape.group,
        zone: shape.zone,
      });
    } else {
      return { skip: shape.reason };
    }
    if (!encoded.ok) return { skip: encoded.reason };
    const bytes = encoded.bytes;
    return { label: `event ${outgoing.event.id}`, frame: () => bytes, reply: verdict };
  }

  supervision(): Exchange<Mlr2Reply> {
    return { label: 'heartbeat', frame: () => HEARTBEAT, reply: verdict };
  }

  settled(unanswered: number): void {
    if (unanswered <= 0) return;
    this.surplus = unanswered;
    this.surplusUntil = performance.now() + this.options.ackTimeoutMs;
  }

  reset(): void {
    this.surplus = 0;
  }
}
