/**
 * Ademco 685 as an output protocol: Vigil plays the 685 receiver, the automation software answers each message with ACK
 * or NAK. Every event goes out as a Contact ID line (src/protocols/ademco685): Contact ID rows and Vigil's internal
 * events as they are, SIA rows through their Contact ID equivalent (general alarm 140 when there is none, logged).
 */
import {
  OKAY,
  encodeEvent,
  readAdemco685Replies,
  siaToContactId,
  type Ademco685Reply,
  type Ademco685Route,
} from '../protocols/ademco685/index.js';
import type { Logger } from '../core/logger.js';
import { shapeOf } from './event-shape.js';
import { LateAckFilter, ackNakVerdict } from './late-ack-filter.js';
import type { OutgoingEvent } from './outbox.js';
import type { Exchange, ProtocolDriver } from './protocol-driver.js';

export interface Ademco685DriverOptions {
  readonly route: Ademco685Route;
  /** How long a late ACK of an earlier transmission may still arrive (the output's ACK timeout). */
  readonly ackTimeoutMs: number;
  /** Notes SIA events sent as the general alarm. */
  readonly logger?: Logger;
}

export class Ademco685Driver implements ProtocolDriver<Ademco685Reply> {
  readonly protocol = 'ADEMCO-685';
  /** The 685 sends its test message only after a quiet period ("if no regular messages have been sent"). */
  readonly supervisionOnlyWhenIdle = true;
  private readonly options: Ademco685DriverOptions;
  private readonly lateAcks: LateAckFilter;

  constructor(options: Ademco685DriverOptions) {
    this.options = options;
    this.lateAcks = new LateAckFilter(options.ackTimeoutMs);
  }

  read(chunk: Buffer): Ademco685Reply[] {
    return this.lateAcks.filter(readAdemco685Replies(chunk));
  }

  event(outgoing: OutgoingEvent): Exchange<Ademco685Reply> | { skip: string } {
    const shape = shapeOf(outgoing.event);
    if (shape.kind === 'none') return { skip: shape.reason };
    let qualifier = shape.kind === 'cid' ? shape.qualifier : 'E';
    let code = shape.code;
    if (shape.kind === 'sia') {
      const cid = siaToContactId(shape.code);
      qualifier = cid.qualifier;
      code = cid.code;
      if (!cid.exact)
        this.options.logger?.warn('SIA code has no Contact ID equivalent; sent as general alarm 140', {
          event: outgoing.event.id,
          sia: shape.code,
          qualifier,
        });
    }
    const encoded = encodeEvent(this.options.route, {
      account: outgoing.account,
      qualifier,
      code,
      group: shape.group,
      zone: shape.zone,
    });
    if (!encoded.ok) return { skip: encoded.reason };
    const bytes = encoded.bytes;
    return { label: `event ${outgoing.event.id}`, frame: () => bytes, reply: ackNakVerdict };
  }

  supervision(): Exchange<Ademco685Reply> {
    return { label: 'OKAY test message', frame: () => OKAY, reply: ackNakVerdict };
  }

  settled(unanswered: number): void {
    this.lateAcks.settled(unanswered);
  }

  reset(): void {
    this.lateAcks.reset();
  }
}
