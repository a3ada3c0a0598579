/**
 * Pure: turns a configured `internal_events[]` entry into a journal event (docs/internal-events.md).
 * No I/O here; the recorder journals what this builds.
 */
import { ALWAYS_JOURNALED, DEFAULT_INTERNAL_EVENTS } from '../settings/internal-events.js';
import type { InternalEventSettings, InternalEventType } from '../settings/schema.js';
import type { ReceiverKind } from '../store/types.js';
import type { NewEvent } from '../core/event-row.js';

/** `events.protocol` of every internal event. */
export const INTERNAL_PROTOCOL = 'INTERNAL';

/**
 * Journal account of the gateway's own events (no object): empty, because the gateway has no
 * DC-09 account of its own. Outputs send these with their own `oid` (docs/internal-events.md §Accounts).
 */
export const GATEWAY_EVENT_ACCOUNT = '';

/** The object an object event is about: its account, receiver and id go into the journal row. */
export interface EventSubject {
  readonly objectId: number;
  readonly account: string;
  readonly receiverId: number;
  readonly receiverKind: ReceiverKind;
}

export interface InternalEventInput {
  readonly type: InternalEventType;
  /** ms epoch (wall clock) */
  readonly at: number;
  /** Null/absent for gateway events. */
  readonly subject?: EventSubject | null;
  /** A short reason appended to the configured name, e.g. the failing component. */
  readonly detail?: string | null;
}

/** The configured entry of a type, the default of an always-journaled one, or null: not journaled at all. */
export function findInternalEvent(
  entries: readonly InternalEventSettings[],
  type: InternalEventType,
): InternalEventSettings | null {
  const configured = entries.find((e) => e.type === type);
  if (configured) return configured;
  if (!ALWAYS_JOURNALED.has(type)) return null;
  return DEFAULT_INTERNAL_EVENTS.find((e) => e.type === type) ?? null;
}

/**
 * Hex as Contact ID fields want it: numeric value, upper case, zero-padded to the CID width
 * ("a" -> "00A" for a 3-digit field). The settings allow "00a" and "A" alike (same value).
 */
export function canonicalHex(value: string, width: number): string {
  return Number.parseInt(value, 16).toString(16).toUpperCase().padStart(width, '0');
}

export function buildInternalEvent(entry: InternalEventSettings, input: InternalEventInput): NewEvent {
  const subject = input.subject ?? null;
  const code = canonicalHex(entry.event_code, 3);
  const group = canonicalHex(entry.group_no, 2);
  const zone = canonicalHex(entry.zone_no, 3);
  const detail = input.detail ? ` (${input.detail})` : '';
  return {
    receivedAt: input.at,
    receiverId: subject?.receiverId ?? null,
    receiverKind: subject?.receiverKind ?? null,
    objectId: subject?.objectId ?? null,
    account: subject?.account ?? GATEWAY_EVENT_ACCOUNT,
    protocol: INTERNAL_PROTOCOL,
    encrypted: false,
    eventClass: 'internal',
    qualifier: entry.classificator,
    code,
    groupNo: group,
    zoneNo: zone,
    text: `${entry.name}${detail}`,
    flags: 0,
    // The journal keeps raw bytes for every event; for ours a readable line naming the type.
    raw: Buffer.from(`INTERNAL ${input.type} ${entry.classificator}${code} ${group} ${zone}`, 'latin1'),
  };
}
