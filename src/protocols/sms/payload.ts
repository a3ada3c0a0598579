/**
 * What an SMS's text means to a receiver (docs/modem.md §Payloads), pure:
 *   (a) a whole SIA DC-09 frame (with or without its LF/CR), opened with the receiver's key;
 *   (b) a 16-digit Contact ID message (SIA DC-05), checksum verified;
 *   (c) anything else: an unparsed SMS, journaled with its text readable.
 * A frame or Contact ID message that is recognisable but damaged is journaled as corrupt, never
 * as an alarm. The DC-09 time window does not apply (an SMS may spend hours in the network).
 *
 * A receiver with a key accepts only what the key authenticates (docs/modem.md §Payloads): anyone can
 * send an SMS from a number of their choosing, so a plain frame or a Contact ID message for one of its
 * accounts is `refused` (journaled like a corrupt SMS, with no account), never that account's event.
 */
import { classifyCid } from '../dc09/classify.js';
import { decodeDatagram } from '../dc09/frame.js';
import { handleFrame, type DecodedEvent, type HandlerContext } from '../dc09/handler.js';
import { parseContactId } from './contact-id.js';

export type SmsPayloadKind = 'dc09' | 'contact-id' | 'corrupt' | 'refused' | 'text';

export interface SmsInterpretation {
  readonly kind: SmsPayloadKind;
  readonly events: DecodedEvent[];
  /** A DC-09 NULL message: a link test without an event row. */
  readonly linkTest: boolean;
  /** The account the message is attributed by; null when none (corrupt, refused and unparsed SMS). */
  readonly account: string | null;
  /**
   * An encrypted frame opened with the receiver's key: its own timestamp (ms), which orders authenticated
   * messages (a sender is learned only from a newer one, docs/modem.md §Test calls); null otherwise.
   */
  readonly authenticatedAt: number | null;
}

export interface SmsContext {
  /** The receiver's AES key (from encryption_password), null when none. */
  readonly key: Buffer | null;
  /** Receiver time, ms. */
  readonly now: number;
  /** The SMS centre's timestamp (TP-SCTS), used as device_time when the payload has none. */
  readonly sentAt: number | null;
}

/** Protocol values of SMS rows in the journal (events.protocol). */
export const SMS_PROTOCOL = { contactId: 'CONTACT-ID', corrupt: 'SMS-CORRUPT', text: 'SMS-TEXT' } as const;

/** The time window is not applied to SMS: ±100 years accepts any real timestamp. */
const NO_WINDOW_S = 100 * 365 * 24 * 3600;
/** CRC (4 hex) then 0LLL: how a DC-09 frame begins once its LF is gone (SIA DC-09 §5.5.1.2, §5.5.1.3). */
const DC09_START = /^[0-9A-Fa-f]{4}0[0-9A-Fa-f]{3}"/;

export function interpretSms(text: string, ctx: SmsContext): SmsInterpretation {
  const trimmed = text.replace(/^[\r\n]+|[\r\n]+$/g, '');
  if (DC09_START.test(trimmed)) return dc09(trimmed, text, ctx);
  const cid = parseContactId(trimmed);
  if (cid.kind === 'message' && ctx.key !== null)
    return corrupt('plain Contact ID refused: the receiver has a key', text, ctx, 'refused');
  if (cid.kind === 'message') {
    const e = base(cid.account, 'CONTACT-ID', classifyCid(cid.qualifier, cid.code), ctx);
    e.qualifier = cid.qualifier;
    e.code = cid.code;
    e.groupNo = cid.group;
    e.zoneNo = cid.zone;
    return { kind: 'contact-id', events: [e], linkTest: false, account: cid.account, authenticatedAt: null };
  }
  if (cid.kind === 'corrupt') return corrupt(`Contact ID ${cid.reason} error`, text, ctx);
  const e = base('', 'SMS-TEXT', 'other', ctx);
  e.text = text;
  return { kind: 'text', events: [e], linkTest: false, account: null, authenticatedAt: null };
}

function dc09(frameText: string, text: string, ctx: SmsContext): SmsInterpretation {
  const item = decodeDatagram(Buffer.from(`\n${frameText}\r`, 'latin1'));
  if (item.kind === 'rejected') return corrupt(`DC-09 frame rejected (${item.reason})`, text, ctx);
  const handler: HandlerContext = {
    now: ctx.now,
    key: ctx.key,
    requireEncryption: ctx.key !== null,
    windowPastS: NO_WINDOW_S,
    windowFutureS: NO_WINDOW_S,
    checkPlainTimestamps: false,
    acceptLocalTime: false,
  };
  const decision = handleFrame(item.body, handler);
  if (decision.action !== 'ack') {
    const reason = `DC-09 message not accepted (${decision.reason ?? decision.action})`;
    const plain = ctx.key !== null && decision.message !== undefined && !decision.message.encrypted;
    return corrupt(reason, text, ctx, plain ? 'refused' : 'corrupt');
  }
  for (const e of decision.events) {
    if (e.deviceTime === null) e.deviceTime = ctx.sentAt;
  }
  const message = decision.message;
  return {
    kind: 'dc09',
    events: decision.events,
    linkTest: decision.linkTest === true,
    account: message?.account ?? null,
    authenticatedAt: message?.encrypted === true ? message.timestamp : null,
  };
}

function corrupt(
  reason: string,
  text: string,
  ctx: SmsContext,
  kind: 'corrupt' | 'refused' = 'corrupt',
): SmsInterpretation {
  const e = base('', 'SMS-CORRUPT', 'other', ctx);
  e.text = `${reason}: ${text}`;
  return { kind, events: [e], linkTest: false, account: null, authenticatedAt: null };
}

function base(
  account: string,
  protocol: DecodedEvent['protocol'],
  eventClass: DecodedEvent['eventClass'],
  ctx: SmsContext,
): DecodedEvent {
  return {
    protocol,
    account,
    sequence: null,
    encrypted: false,
    eventClass,
    code: null,
    deviceTime: ctx.sentAt,
    deviceTimeText: null,
  };
}
