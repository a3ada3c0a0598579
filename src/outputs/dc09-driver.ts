/**
 * SIA DC-09 forwarding: Vigil is the transmitter (SIA DC-09 §5.5), using the codec in src/protocols/dc09.
 *   - Contact ID shaped events go out as ADM-CID "#acct|Qeee gg zzz", SIA events as SIA-DCS "#acct|N[ri<area>/]<code><zone>".
 *   - Sequence numbers count 0001..9999 and wrap to 0001 (§5.5.1.5); a retransmission keeps its number so the receiver
 *     can recognise the duplicate. The number of the last ACKed message is stored with the output cursor and restored
 *     at start, so a restart continues the count (and re-sends an unACKed event under the number it had).
 *   - Every message carries a timestamp (§5.5.1.9: mandatory when encrypted; Vigil sends it always), written as
 *     the local clock plus the offset the receiver taught us with its last NAK (§5.5.3.2: the NAK carries the
 *     receiver's time; the transmitter adopts it and sends again).
 *   - ACK / *ACK must carry the message's sequence number; DUH means "understood, will not process" (§5.5.3.3).
 *   - Link supervision: NULL messages (§5.5.1.4 "NULL" token) under the output's oid account.
 */
import type { Clock } from '../core/clock.js';
import {
  Dc09Framer,
  buildMessage,
  decodeDatagram,
  parseReply,
  type ParsedReply,
  type RandomBytes,
} from '../protocols/dc09/index.js';
import type { FramerItem } from '../protocols/dc09/index.js';
import type { LinkFraming } from './byte-link.js';
import { shapeOf } from './event-shape.js';
import type { OutgoingEvent } from './outbox.js';
import type { Exchange, ProtocolDriver, Verdict } from './protocol-driver.js';

export interface Dc09DriverOptions {
  /** R field (written as upper-case hex). */
  readonly receiver: number;
  /** L field (written as upper-case hex). */
  readonly line: number;
  /** Account of NULL link tests (the output's oid as 4 hex digits). */
  readonly supervisionAccount: string;
  /** AES key (parseKey of sia_dc09.encryption_key) or null for plain messages. */
  readonly key: Buffer | null;
  readonly clock: Clock;
  readonly randomBytes?: RandomBytes;
}

const ACCOUNT_RE = /^[0-9A-F]{1,16}$/;
const HEX_RE = /^[0-9A-F]*$/;
const QUALIFIER_DIGIT = { E: '1', R: '3', P: '6' } as const;

/** Left-pads with zeros to `width`; drops leading zeros only. Null when it does not fit or is not hex. */
function hexDigits(value: string | null, width: number): string | null {
  let text = (value ?? '').trim().toUpperCase();
  if (!HEX_RE.test(text)) return null;
  while (text.length > width && text[0] === '0') text = text.slice(1);
  return text.length > width ? null : text.padStart(width, '0');
}

export class Dc09Driver implements ProtocolDriver<ParsedReply> {
  readonly protocol = 'SIA-DC09';
  readonly supervisionOnlyWhenIdle = true;
  private readonly options: Dc09DriverOptions;
  private readonly framer = new Dc09Framer();
  private lastSequence = 0;
  /** The sequence number of the last ACKed message. */
  private settledSequence = 0;
  readonly sequence = {
    settled: (): number => this.settledSequence,
    restore: (last: number): void => {
      const valid = Number.isInteger(last) && last >= 0 && last <= 9999 ? last : 0;
      this.lastSequence = valid;
      this.settledSequence = valid;
    },
  };
  /** Receiver time minus local time, learned from the last NAK (ms). */
  private offsetMs = 0;

  constructor(options: Dc09DriverOptions) {
    this.options = options;
  }

  /** The clock offset adopted from the receiver's last NAK (ms; 0 until a NAK carried a time). */
  get clockOffsetMs(): number {
    return this.offsetMs;
  }

  read(chunk: Buffer, framing: LinkFraming): ParsedReply[] {
    const items: FramerItem[] = framing === 'datagram' ? [decodeDatagram(chunk)] : this.framer.push(chunk);
    const out: ParsedReply[] = [];
    for (const item of items) {
      if (item.kind !== 'frame') continue;
      const reply = parseReply(item.body, this.options.key);
      if (reply) out.push(reply);
    }
    return out;
  }

  event(outgoing: OutgoingEvent): Exchange<ParsedReply> | { skip: string } {
    let account = outgoing.account.trim().toUpperCase();
    if (!ACCOUNT_RE.test(account)) return { skip: `account "${account}" is not 1 to 16 hex digits` };
    // DC-09 accounts have 3 to 16 characters (§5.5.1.6); shorter numeric accounts are padded with zeros.
    account = account.padStart(3, '0');
    const shape = shapeOf(outgoing.event);
    let token: 'ADM-CID' | 'SIA-DCS';
    let data: string;
    if (shape.kind === 'cid') {
      const code = hexDigits(shape.code, 3);
      const group = hexDigits(shape.group, 2);
      const zone = hexDigits(shape.zone, 3);
      if (code === null || group === null || zone === null)
        return { skip: 'Contact ID code, group or zone does not fit 3/2/3 hex digits' };
      token = 'ADM-CID';
      data = `#${account}|${QUALIFIER_DIGIT[shape.qualifier]}${code} ${group} ${zone}`;
    } else if (shape.kind === 'sia') {
      const area = (shape.group ?? '').trim();
      const zone = (shape.zone ?? '').trim();
      if (!/^\d*$/.test(area) || !/^\d*$/.test(zone)) return { skip: 'SIA area or zone is not decimal digits' };
      token = 'SIA-DCS';
      data = `#${account}|N${area === '' ? '' : `ri${area}/`}${shape.code}${zone}`;
    } else {
      return { skip: shape.reason };
    }
    return this.exchange(`event ${outgoing.event.id}`, token, account, data);
  }

  supervision(): Exchange<ParsedReply> {
    return this.exchange('NULL link test', 'NULL', this.options.supervisionAccount, '');
  }

  settled(): void {
    // Replies carry the sequence number: a late ACK of an earlier copy cannot be mistaken for another message's.
  }

  reset(): void {
    this.framer.reset();
  }

  private exchange(
    label: string,
    token: 'ADM-CID' | 'SIA-DCS' | 'NULL',
    account: string,
    data: string,
  ): Exchange<ParsedReply> {
    this.lastSequence = this.lastSequence >= 9999 ? 1 : this.lastSequence + 1;
    const sequence = this.lastSequence;
    const sequenceText = String(sequence).padStart(4, '0');
    const { receiver, line, key, clock, randomBytes } = this.options;
    return {
      label,
      frame: () =>
        buildMessage({
          token,
          sequence,
          receiver,
          line,
          account,
          data,
          timestamp: clock.now() + this.offsetMs,
          key,
          ...(randomBytes ? { randomBytes } : {}),
        }),
      reply: (reply: ParsedReply): Verdict => {
        if (reply.kind === 'NAK') {
          // §5.5.3.2: a NAK answers the message that failed the time test; it carries the receiver's time.
          if (reply.timestamp !== null) this.offsetMs = reply.timestamp - clock.now();
          return 'nak';
        }
        if (reply.sequence !== sequenceText) return 'ignore';
        if (reply.account !== undefined && reply.account.toUpperCase() !== account) return 'ignore';
        if (reply.kind === 'ACK') {
          this.settledSequence = sequence;
          return 'ack';
        }
        if (reply.kind === 'DUH') return 'refused';
        return 'ignore';
      },
    };
  }
}
