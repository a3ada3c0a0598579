/**
 * The receiver's decision for one frame body, pure: parse, open, time test, decode, and the reply to write.
 * The receiver commits `events` to the journal BEFORE writing `reply` (an ACK promises the event is stored).
 * Reply rules (SIA DC-09 §5.5.3): NAK only for the time test (§5.5.3.2); DUH for a correctly framed message the
 * receiver cannot process (§5.5.3.3); ACK otherwise. Replies to replies and device-link bodies get no answer here.
 */
import type { DeviceEventClass } from '../../core/event-class.js';
import { classifyCid, classifySia } from './classify.js';
import { parseAdmCid } from './adm-cid.js';
import type { RandomBytes } from './crypto.js';
import {
  TEXT_ACCOUNT_RE,
  openMessage,
  parseMessage,
  type ForeignMessage,
  type MessageHeader,
  type MessageTolerances,
  type ParsedMessage,
} from './message.js';
import { buildAck, buildDuh, buildNak } from './replies.js';
import { parseSiaDcs } from './sia-dcs.js';
import { decodeText } from './text.js';
import { DEFAULT_WINDOW_FUTURE_S, DEFAULT_WINDOW_PAST_S, checkWindow } from './timestamp.js';

export interface HandlerContext {
  /** Receiver time, ms since the epoch. */
  now: number;
  /** The receiver's AES key (see receiverPasswordKey / parseKey); null when none is configured. */
  key: Buffer | null;
  requireEncryption: boolean;
  /** Time test: accepted past skew in seconds (default DEFAULT_WINDOW_PAST_S, §5.5.1.8). */
  windowPastS?: number;
  /** Time test: accepted future skew in seconds (default DEFAULT_WINDOW_FUTURE_S). */
  windowFutureS?: number;
  /** Apply the time test to unencrypted messages that carry a timestamp too (the standard only requires it for encrypted ones). */
  checkPlainTimestamps: boolean;
  /** Accept panels whose clock is set to local time (see timestamp.ts checkWindow). */
  acceptLocalTime: boolean;
  localOffsetMinutes?: number;
  /** Pad source for *ACK (tests inject a fixed one). */
  randomBytes?: RandomBytes;
  /** Header deviations to accept (docs/dc09.md "Tolerances"); absent = the standard's letter. */
  tolerances?: MessageTolerances;
}

export interface DecodedEvent {
  /**
   * MLR2: a computer-port line in no known layout, kept as received (src/protocols/mlr2/handler.ts).
   * CONTACT-ID, SMS-CORRUPT and SMS-TEXT come from SMS (src/protocols/sms/payload.ts).
   */
  protocol: 'SIA-DCS' | 'ADM-CID' | 'MLR2' | 'CONTACT-ID' | 'SMS-CORRUPT' | 'SMS-TEXT';
  /** As received (header account, else the one in the data): text, leading zeros and case kept. */
  account: string;
  receiver?: string;
  line?: string;
  /** Null for events that did not come in a DC-09 frame (SMS). */
  sequence: string | null;
  encrypted: boolean;
  eventClass: DeviceEventClass;
  /** Contact ID only. */
  qualifier?: 'E' | 'R' | 'P';
  /** SIA: two letters; Contact ID: three hex digits; null for an unparsed or corrupt SMS. */
  code: string | null;
  /** SIA: the ri modifier; Contact ID: the group. */
  groupNo?: string;
  /** SIA: the code's parameter (zone, user, ... as the code defines); Contact ID: zone or user. */
  zoneNo?: string;
  text?: string;
  modifiers?: Record<string, string>;
  /** Extended data blocks by identifier (§5.5.1.7 sub-clauses); repeated identifiers joined with "\n". */
  extended?: Record<string, string>;
  /** Message timestamp as UTC ms (corrected when a local-time clock was accepted), null when none or invalid. */
  deviceTime: number | null;
  deviceTimeText: string | null;
}

export interface FrameDecision {
  action: 'ack' | 'nak' | 'duh' | 'ignore';
  reply: Buffer | null;
  message?: ParsedMessage;
  events: DecodedEvent[];
  reason?: string;
  /** A NULL message: supervision of the link, nothing to store as an event. */
  linkTest?: boolean;
  /** A device-link body ("VL-..."): for the receiver to route. */
  foreign?: ForeignMessage;
  /** Set by the receiver (not by handleFrame): a replay of a journaled message, ACKed without events. */
  replayed?: boolean;
}

const ACCOUNT_RE = /^[0-9A-Fa-f]{3,16}$/;

export function handleFrame(body: Buffer, ctx: HandlerContext): FrameDecision {
  const parsed = parseMessage(body, ctx.tolerances);
  if (parsed.kind === 'foreign')
    return { action: 'ignore', reply: null, events: [], reason: 'foreign', foreign: parsed };
  if (parsed.kind === 'invalid') {
    if (parsed.reason === 'reply-token') return { action: 'ignore', reply: null, events: [], reason: parsed.detail };
    return duh(parsed.header, `${parsed.reason}: ${parsed.detail}`);
  }
  let msg = parsed;
  if (msg.encrypted) {
    if (!ctx.key) return duh(msg, 'encrypted message but no key configured', msg);
    const opened = openMessage(msg, ctx.key);
    if (!opened) return duh(msg, 'cannot decrypt (wrong key or damaged data)', msg);
    msg = opened;
  } else if (ctx.requireEncryption) {
    return duh(msg, 'unencrypted message on a receiver that requires encryption', msg);
  }

  const window = {
    windowPastS: ctx.windowPastS ?? DEFAULT_WINDOW_PAST_S,
    windowFutureS: ctx.windowFutureS ?? DEFAULT_WINDOW_FUTURE_S,
    acceptLocalTime: ctx.acceptLocalTime,
    ...(ctx.localOffsetMinutes !== undefined ? { localOffsetMinutes: ctx.localOffsetMinutes } : {}),
  };
  let deviceTime = msg.timestamp;
  if (msg.encrypted || ctx.checkPlainTimestamps) {
    // §5.5.1.8, §5.5.2.1: the timestamp is mandatory in encrypted messages, optional in plain ones.
    if (msg.timestampText === null && msg.encrypted) return nak(ctx, msg, 'encrypted message without timestamp');
    if (msg.timestampText !== null) {
      if (msg.timestamp === null) return nak(ctx, msg, `invalid timestamp ${msg.timestampText}`);
      const w = checkWindow(msg.timestamp, ctx.now, window);
      if (!w.ok) return nak(ctx, msg, `timestamp ${msg.timestampText} outside the accepted window`);
      deviceTime = w.deviceTime;
    }
  } else if (msg.timestamp !== null) {
    const w = checkWindow(msg.timestamp, ctx.now, window);
    if (w.ok) deviceTime = w.deviceTime;
  }

  if (msg.token === 'NULL') {
    // A link test; data some panels put in NULL frames is ignored.
    return { action: 'ack', reply: ack(msg, ctx), message: msg, events: [], linkTest: true };
  }
  const events = decodeEvents(msg, deviceTime, ctx.tolerances?.textAccount === true);
  if (typeof events === 'string') return duh(msg, events, msg);
  return { action: 'ack', reply: ack(msg, ctx), message: msg, events };
}

function ack(msg: ParsedMessage, ctx: HandlerContext): Buffer {
  return buildAck(msg, { now: ctx.now, key: ctx.key, ...(ctx.randomBytes ? { randomBytes: ctx.randomBytes } : {}) });
}

function duh(header: Partial<MessageHeader>, reason: string, message?: ParsedMessage): FrameDecision {
  return { action: 'duh', reply: buildDuh(header), events: [], reason, ...(message ? { message } : {}) };
}

function nak(ctx: HandlerContext, message: ParsedMessage, reason: string): FrameDecision {
  return { action: 'nak', reply: buildNak(ctx.now), message, events: [], reason };
}

function decodeEvents(msg: ParsedMessage, deviceTime: number | null, textAccount: boolean): DecodedEvent[] | string {
  const data = msg.data ?? '';
  // One object literal per event, optional fields assigned after (no spreads): this runs for
  // every event received, and the spreads were a measurable share of the ingest's CPU.
  const extended = msg.extended.length > 0 ? extendedRecord(msg) : undefined;
  const event = (
    account: string,
    protocol: DecodedEvent['protocol'],
    eventClass: DeviceEventClass,
    code: string,
  ): DecodedEvent => {
    const e: DecodedEvent = {
      protocol,
      account,
      sequence: msg.sequence,
      encrypted: msg.encrypted,
      eventClass,
      code,
      deviceTime,
      deviceTimeText: msg.timestampText,
    };
    if (msg.receiver !== undefined) e.receiver = msg.receiver;
    if (msg.line !== undefined) e.line = msg.line;
    if (extended !== undefined) e.extended = extended;
    return e;
  };
  if (msg.token === 'ADM-CID') {
    const cid = parseAdmCid(data);
    if ('error' in cid) return cid.error;
    const account = msg.account ?? cid.account;
    if (!validAccount(account, msg, textAccount)) return 'no valid account in the message';
    const e = event(account, 'ADM-CID', classifyCid(cid.qualifier, cid.code), cid.code);
    e.qualifier = cid.qualifier;
    e.groupNo = cid.group;
    e.zoneNo = cid.zone;
    return [e];
  }
  const sia = parseSiaDcs(data);
  if ('error' in sia) return sia.error;
  const account = msg.account ?? sia.account;
  if (!validAccount(account, msg, textAccount)) return 'no valid account in the message';
  const events: DecodedEvent[] = new Array(sia.events.length);
  for (let i = 0; i < sia.events.length; i++) {
    const s = sia.events[i]!;
    const e = event(account, 'SIA-DCS', classifySia(s.code), s.code);
    if (s.modifiers.ri !== undefined) e.groupNo = s.modifiers.ri;
    if (s.parameter !== undefined) e.zoneNo = s.parameter;
    if (s.text !== undefined) e.text = s.text;
    if (s.function === 'O') e.modifiers = { ...s.modifiers, function: 'O' };
    else if (hasKeys(s.modifiers)) e.modifiers = s.modifiers;
    events[i] = e;
  }
  return events;
}

/** 3-16 hex digits; with the text-account tolerance letters and digits too (marked on the message). */
function validAccount(account: string | undefined, msg: ParsedMessage, textAccount: boolean): account is string {
  if (account === undefined) return false;
  if (ACCOUNT_RE.test(account)) return true;
  if (!textAccount || !TEXT_ACCOUNT_RE.test(account)) return false;
  if (!msg.quirks?.includes('text-account')) (msg.quirks ??= []).push('text-account');
  return true;
}

function hasKeys(record: Record<string, string>): boolean {
  for (const _ in record) return true;
  return false;
}

function extendedRecord(msg: ParsedMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const field of msg.extended) {
    const value = decodeText(field.value);
    out[field.id] = out[field.id] === undefined ? value : `${out[field.id]}\n${value}`;
  }
  return out;
}
