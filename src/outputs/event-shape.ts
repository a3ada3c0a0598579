/**
 * What kind of alarm message a journal row can be sent as, whatever its origin: a Contact ID event (ADM-CID from
 * DC-09, and Vigil's internal events, which carry a classificator, code, group and zone) or a SIA event (SIA-DCS).
 * Both outputs (MLR2 and DC-09) start from this shape, so they agree on what an event means.
 */
import type { StoredEvent } from '../core/event-row.js';

export type EventShape =
  | { kind: 'cid'; qualifier: 'E' | 'R' | 'P'; code: string; group: string | null; zone: string | null }
  | { kind: 'sia'; code: string; group: string | null; zone: string | null }
  | { kind: 'none'; reason: string };

const CID_CODE_RE = /^[0-9A-F]{1,3}$/;
const SIA_CODE_RE = /^[A-Z]{2}$/;

export function shapeOf(event: StoredEvent): EventShape {
  const code = (event.code ?? '').toUpperCase();
  if (event.protocol === 'SIA-DCS' || (SIA_CODE_RE.test(code) && event.qualifier === null)) {
    if (!SIA_CODE_RE.test(code)) return { kind: 'none', reason: `SIA event without a two-letter code ("${code}")` };
    return { kind: 'sia', code, group: event.groupNo, zone: event.zoneNo };
  }
  if (CID_CODE_RE.test(code)) {
    // A Contact ID row always has its qualifier; 'E' (new event) is the safe reading if one ever lacks it.
    return { kind: 'cid', qualifier: event.qualifier ?? 'E', code, group: event.groupNo, zone: event.zoneNo };
  }
  return { kind: 'none', reason: `no Contact ID or SIA event code ("${code}", protocol ${event.protocol})` };
}
