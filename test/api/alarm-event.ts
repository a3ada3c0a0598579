/** The journal row most API, page and service tests append: override what the test is about. */
import type { NewEvent } from '../../src/core/event-row.js';
import { START } from './harness.js';

/** A SIA-DCS burglary alarm (BA, group 01, zone 005) of account 1234 over TCP receiver 1, received at START. */
export function alarmEvent(overrides: Partial<NewEvent> = {}): NewEvent {
  return {
    receivedAt: START,
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '198.51.100.7',
    account: '1234',
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: 'E',
    code: 'BA',
    groupNo: '01',
    zoneNo: '005',
    raw: new Uint8Array([0x0a]),
    ...overrides,
  };
}
