/**
 * MLR2 / MLR2-DG as an output protocol: Vigil plays the Sur-Gard receiver, the automation software (Patriot,
 * Manitou, MASterMind, SIMS, ...) answers each line with ACK or NAK (MLR2-DG manual, "Acknowledgment of the
 * signal"). The codec is src/protocols/mlr2; this file maps journal events onto it.
 */
import {
  encodeContactId,
  encodeSia,
  heartbeat,
  readReplies,
  type EncodeResult,
  type Mlr2Reply,
  type Mlr2Route,
  type Mlr2Variant,
} from '../protocols/mlr2/index.js';
import { shapeOf } from './event-shape.js';
import { LateAckFilter, ackNakVerdict } from './late-ack-filter.js';
import type { OutgoingEvent } from './outbox.js';
import type { Exchange, ProtocolDriver } from './protocol-driver.js';

export interface Mlr2DriverOptions {
  readonly variant: Mlr2Variant;
  readonly route: Mlr2Route;
  /** How long a late ACK of an earlier transmission may still arrive (the output's ACK timeout). */
  readonly ackTimeoutMs: number;
}

export class Mlr2Driver implements ProtocolDriver<Mlr2Reply> {
  readonly protocol: string;
  readonly supervisionOnlyWhenIdle = false;
  private readonly options: Mlr2DriverOptions;
  private readonly lateAcks: LateAckFilter;
  private readonly heartbeat: Buffer;

  constructor(options: Mlr2DriverOptions) {
    this.options = options;
    this.protocol = options.variant;
    this.lateAcks = new LateAckFilter(options.ackTimeoutMs);
    this.heartbeat = heartbeat(options.route);
  }

  read(chunk: Buffer): Mlr2Reply[] {
    return this.lateAcks.filter(readReplies(chunk));
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
    return { label: `event ${outgoing.event.id}`, frame: () => bytes, reply: ackNakVerdict };
  }

  supervision(): Exchange<Mlr2Reply> {
    const bytes = this.heartbeat;
    return { label: 'heartbeat', frame: () => bytes, reply: ackNakVerdict };
  }

  settled(unanswered: number): void {
    this.lateAcks.settled(unanswered);
  }

  reset(): void {
    this.lateAcks.reset();
  }
}
