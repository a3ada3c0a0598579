/**
 * The JSON body of a webhook POST (docs/outputs.md §Webhook body), pure. One shape whatever the batch size:
 * `{ "gateway": <instance name>, "events": [ ... ] }`, events in journal order. Field names are snake_case like
 * the settings; absent values are null (never left out), so a receiver can rely on every key.
 *   - `account` is the account the outputs send (overrides applied, docs/outputs.md §Accounts);
 *     `device_account` the one the device sent.
 *   - times are ISO 8601 UTC with milliseconds; `event_time` only when the panel sent a timestamp, with the
 *     text it sent in `event_time_text`.
 *   - `raw_base64`: the frame exactly as received, base64 (binary-safe: DC-09 frames may be encrypted).
 */
import type { StoredEvent } from '../core/event-row.js';
import type { OutgoingEvent } from './outbox.js';

export const WEBHOOK_BODY_VERSION = 1;

export interface WebhookEventJson {
  readonly id: number;
  readonly account: string;
  readonly device_account: string;
  readonly protocol: string;
  readonly event_class: string;
  readonly qualifier: string | null;
  readonly code: string | null;
  readonly group: string | null;
  readonly zone: string | null;
  readonly text: string | null;
  readonly receiver: { readonly id: number; readonly kind: string | null } | null;
  readonly object: { readonly id: number; readonly uid: string | null } | null;
  readonly remote_address: string | null;
  readonly received_at: string;
  readonly event_time: string | null;
  readonly event_time_text: string | null;
  readonly raw_base64: string;
}

export interface WebhookBody {
  readonly version: number;
  readonly gateway: string;
  readonly events: readonly WebhookEventJson[];
}

/** The object's uid, when the event belongs to an object row (null when unknown or the row is gone). */
export type UidOf = (objectId: number) => string | null;

function iso(ms: number | null): string | null {
  return ms === null || !Number.isFinite(ms) ? null : new Date(ms).toISOString();
}

export function webhookEvent(outgoing: OutgoingEvent, uidOf: UidOf): WebhookEventJson {
  const e: StoredEvent = outgoing.event;
  return {
    id: e.id,
    account: outgoing.account,
    device_account: e.account,
    protocol: e.protocol,
    event_class: e.eventClass,
    qualifier: e.qualifier,
    code: e.code,
    group: e.groupNo,
    zone: e.zoneNo,
    text: e.text,
    receiver: e.receiverId === null ? null : { id: e.receiverId, kind: e.receiverKind },
    object: e.objectId === null ? null : { id: e.objectId, uid: uidOf(e.objectId) },
    remote_address: e.remoteAddress,
    received_at: iso(e.receivedAt) ?? '',
    event_time: iso(e.deviceTime),
    event_time_text: e.deviceTimeText,
    raw_base64: e.raw.toString('base64'),
  };
}

/** The exact bytes POSTed (and signed). */
export function webhookBody(gateway: string, events: readonly OutgoingEvent[], uidOf: UidOf): Buffer {
  const body: WebhookBody = {
    version: WEBHOOK_BODY_VERSION,
    gateway,
    events: events.map((e) => webhookEvent(e, uidOf)),
  };
  return Buffer.from(JSON.stringify(body), 'utf8');
}
