/** Ingest items for tests: a SIA event, frames, HELLOs and session logs with test defaults. */
import type { FrameItem, HelloItem, SessionLog } from '../../../src/ingest/types.js';
import type { DecodedEvent } from '../../../src/protocols/dc09/handler.js';

export const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

export function event(account: string, code = 'BA', zone = '01'): DecodedEvent {
  return {
    protocol: 'SIA-DCS',
    account,
    receiver: '1',
    line: '1',
    sequence: '0001',
    encrypted: false,
    eventClass: 'alarm',
    code,
    groupNo: '1',
    zoneNo: zone,
    deviceTime: null,
    deviceTimeText: null,
  };
}

export function frame(account: string | null, options: Partial<FrameItem> = {}): FrameItem {
  return {
    kind: 'frame',
    receiver: { id: 1, kind: 'tcp' },
    transport: 'tcp',
    remoteAddress: '192.0.2.7:5000',
    receivedAt: T0,
    session: null,
    raw: Buffer.from(`frame of ${account}`),
    events: account === null ? [] : [event(account)],
    linkTest: false,
    account,
    device: null,
    ...options,
  };
}

export function hello(uid: string, account?: string, options: Partial<HelloItem> = {}): HelloItem {
  return {
    kind: 'hello',
    receiver: { id: 1, kind: 'tcp' },
    transport: 'tcp',
    remoteAddress: '192.0.2.8:5001',
    receivedAt: T0,
    session: null,
    uid,
    ...(account ? { account } : {}),
    ...options,
  };
}

export function sessionLog(connectedAt = T0 - 1000): SessionLog {
  return {
    id: null,
    objectId: null,
    connectedAt,
    remoteAddress: '192.0.2.9:6000',
    events: 0,
    bytesIn: 0,
    bytesOut: 0,
    closed: false,
  };
}
