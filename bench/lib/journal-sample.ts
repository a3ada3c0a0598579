/**
 * Journal rows as the writer thread receives them (EventInsertParams, built before any timing): a
 * SIA-DCS alarm with every column a real one fills, from one of many accounts, raw frame included.
 */
import { toInsertParams, type EventInsertParams } from '../../src/store/journal-columns.js';
import type { NewEvent } from '../../src/core/event-row.js';

/** `count` distinct rows (account, sequence, port, object id and frame vary). */
export function sampleJournalRows(count = 256): EventInsertParams[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => toInsertParams(sampleJournalEvent(i, now + i)));
}

/** The i-th sample event, received at `receivedAt`. */
export function sampleJournalEvent(i: number, receivedAt: number): NewEvent {
  const account = String(100000 + i * 37).slice(-6);
  const sequence = String(i % 10000).padStart(4, '0');
  return {
    receivedAt,
    deviceTime: receivedAt - 800,
    deviceTimeText: '_12:00:00,11-24-2026',
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: `127.0.0.1:${40000 + i}`,
    objectId: 1 + i,
    account,
    dc09Receiver: 'R1',
    dc09Line: 'L1',
    sequence,
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: 'BA',
    groupNo: '01',
    zoneNo: '003',
    text: null,
    raw: Buffer.from(`"SIA-DCS"${sequence}R1L1#${account}[#${account}|Nri01/BA003]_12:00:00,11-24-2026`),
  };
}
