/**
 * The decision for one MLR2 computer-port line, pure, in the shape the DC-09 handler returns so the one receiver
 * session drives both (docs/serial.md §MLR2 input):
 *   - Contact ID and SIA messages: their event, ACK (0x06) written after the commit;
 *   - a heartbeat: a link test (nothing journaled), ACKed too ("the computer ACKs it");
 *   - printable text of a type Vigil does not know: journaled as received (class `other`, protocol `MLR2`), ACKed: an
 *     event the receiver could only send this way is kept, never dropped;
 *   - a line of a known type in a wrong layout (a Contact ID line cut short), or with bytes outside printable ASCII:
 *     NAK (0x15), nothing journaled, and the receiver sends it again (MLR2 manual §Acknowledgment of the Signal).
 * MLR2 lines carry no timestamp and no sequence number.
 */
import { classifyCid, classifySia } from '../dc09/classify.js';
import type { DecodedEvent, FrameDecision } from '../dc09/handler.js';
import { ACK, NAK } from './codec.js';
import { decodeMlr2Line } from './decoder.js';

export const MLR2_ACK: Buffer = Buffer.from([ACK]);
export const MLR2_NAK: Buffer = Buffer.from([NAK]);

/** `heartbeat` tells the receiver its line is alive (docs/serial.md §Heartbeat supervision). */
export function handleMlr2Line(body: Buffer): FrameDecision & { heartbeat: boolean } {
  const m = decodeMlr2Line(body);
  switch (m.kind) {
    case 'malformed':
      return { action: 'nak', reply: MLR2_NAK, events: [], reason: m.reason, heartbeat: false };
    case 'heartbeat':
      return { action: 'ack', reply: MLR2_ACK, events: [], linkTest: true, heartbeat: true };
    case 'unknown':
      return {
        action: 'ack',
        reply: MLR2_ACK,
        events: [event('MLR2', '', 'other', '', null, null, m.text)],
        heartbeat: false,
      };
    case 'cid': {
      const e = event('ADM-CID', m.account, classifyCid(m.qualifier, m.code), m.code, m.route.receiver, m.route.line);
      e.qualifier = m.qualifier;
      e.groupNo = m.group;
      e.zoneNo = m.zone;
      return { action: 'ack', reply: MLR2_ACK, events: [e], heartbeat: false };
    }
    case 'sia': {
      const e = event('SIA-DCS', m.account, classifySia(m.code), m.code, m.route.receiver, m.route.line);
      if (m.group !== null) e.groupNo = m.group;
      if (m.zone !== '') e.zoneNo = m.zone;
      return { action: 'ack', reply: MLR2_ACK, events: [e], heartbeat: false };
    }
  }
}

function event(
  protocol: DecodedEvent['protocol'],
  account: string,
  eventClass: DecodedEvent['eventClass'],
  code: string,
  receiver: string | null,
  line: string | null,
  text?: string,
): DecodedEvent {
  const e: DecodedEvent = {
    protocol,
    account,
    sequence: '',
    encrypted: false,
    eventClass,
    code,
    deviceTime: null,
    deviceTimeText: null,
  };
  if (receiver !== null) e.receiver = receiver;
  if (line !== null) e.line = line;
  if (text !== undefined) e.text = text;
  return e;
}
