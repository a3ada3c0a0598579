/**
 * A decoded DC-09 event -> the journal row the store appends (src/store/types.ts NewEvent).
 * `text` holds the SIA text as received; when the message carried DC-09 extended data
 * (SIA DC-09 §5.5.1.8) it holds JSON `{"text"?: ..., "extended": {...}}` instead, as the store's
 * column documents ("SIA text, or extended data as JSON"). The raw frame is kept as received
 * (for an encrypted message: the ciphertext frame).
 */
import type { DecodedEvent } from '../protocols/dc09/handler.js';
import type { NewEvent } from '../core/event-row.js';
import type { FrameItem } from './types.js';

/**
 * Every field is present from the start (flags too): the ingest sets objectId and flags after the
 * writer has decided them, and a row that kept one hidden-class shape keeps the bus listeners that
 * read it monomorphic.
 */
export function journalRow(e: DecodedEvent, item: FrameItem): NewEvent {
  return {
    receivedAt: item.receivedAt,
    deviceTime: e.deviceTime,
    deviceTimeText: e.deviceTimeText,
    receiverId: item.receiver.id,
    receiverKind: item.receiver.kind,
    transport: item.transport,
    remoteAddress: item.remoteAddress,
    objectId: null,
    account: e.account,
    dc09Receiver: e.receiver ?? null,
    dc09Line: e.line ?? null,
    sequence: e.sequence,
    protocol: e.protocol,
    encrypted: e.encrypted,
    eventClass: e.eventClass,
    qualifier: e.qualifier ?? null,
    code: e.code,
    groupNo: e.groupNo ?? null,
    zoneNo: e.zoneNo ?? null,
    text: eventText(e),
    flags: 0,
    raw: item.raw,
  };
}

function eventText(e: DecodedEvent): string | null {
  if (e.extended === undefined) return e.text ?? null;
  return JSON.stringify(e.text === undefined ? { extended: e.extended } : { text: e.text, extended: e.extended });
}
