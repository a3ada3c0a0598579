/** Mapping between objects rows (snake_case SQL) and ObjectRecord. */
import { quirkNames } from '../core/dc09-quirks.js';
import type { ConnectionState, ObjectRecord } from './types.js';

export interface ObjectRow {
  id: number;
  account: string;
  uid: string | null;
  hw_id: string | null;
  firmware: string | null;
  main_object_id: number | null;
  receiver_id: number;
  receiver_kind: ObjectRecord['receiverKind'];
  transport: string | null;
  remote_address: string | null;
  first_seen: number;
  last_seen: number;
  last_ping: number | null;
  connection_state: ConnectionState;
  supervision_state: string | null;
  link_period_s: number | null;
  sms: number;
  restore_count: number;
  /** Migration 9: bit mask of DC-09 quirks (src/core/dc09-quirks.ts). */
  dc09_quirks: number;
}

export function toRecord(row: ObjectRow): ObjectRecord {
  const record = {
    id: row.id,
    account: row.account,
    uid: row.uid,
    hwId: row.hw_id,
    firmware: row.firmware,
    mainObjectId: row.main_object_id,
    receiverId: row.receiver_id,
    receiverKind: row.receiver_kind,
    transport: row.transport,
    remoteAddress: row.remote_address,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    lastPing: row.last_ping,
    connectionState: row.connection_state,
    supervisionState: row.supervision_state,
    linkPeriodS: row.link_period_s,
    sms: row.sms === 1,
    restoreCount: row.restore_count,
  };
  return row.dc09_quirks ? { ...record, dc09Quirks: quirkNames(row.dc09_quirks) } : record;
}
