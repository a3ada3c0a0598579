/**
 * The account an output sends for an event (docs/outputs.md §Accounts):
 *   1. an event of the gateway itself (no receiver, no object): the output's `oid`, as 4 upper-case hex digits;
 *   2. an event of an object (or of a related object) with an override OID (PUT /api/oid-override): the override;
 *   3. otherwise the account exactly as the device sent it.
 * Resolved when the event is SENT, not when it was journaled: an override set during an outage applies to the
 * backlog too, and a device that is re-identified later needs no rewrite of the journal.
 */
import type { ObjectRecord } from '../store/types.js';
import type { StoredEvent } from '../core/event-row.js';

export interface AccountLookups {
  readonly objects: { get(id: number): ObjectRecord | null };
  readonly overrides: {
    resolve(device: { uid?: string | null; account?: string | null }, relatedOid: string | null): string | null;
  };
}

export type AccountResolver = (event: StoredEvent) => string;

/** The output `oid` (0..0xFFFF) as the account of gateway events and DC-09 link tests: "00A1". */
export function oidAccount(oid: number): string {
  return oid.toString(16).toUpperCase().padStart(4, '0');
}

export function createAccountResolver(lookups: AccountLookups, outputOid: number): AccountResolver {
  const gatewayAccount = oidAccount(outputOid);
  return (event) => {
    if (event.receiverId === null && event.objectId === null) return gatewayAccount;
    return overrideOf(lookups, event) ?? event.account;
  };
}

function overrideOf(lookups: AccountLookups, event: StoredEvent): string | null {
  const object = event.objectId === null ? null : lookups.objects.get(event.objectId);
  if (object === null) {
    // Not linked to an object row (or the row was deleted): an override keyed by the account still applies.
    return lookups.overrides.resolve({ account: event.account }, null);
  }
  if (object.mainObjectId === null)
    return lookups.overrides.resolve({ uid: object.uid, account: object.account }, null);
  const main = lookups.objects.get(object.mainObjectId);
  if (main === null) return null;
  return lookups.overrides.resolve({ uid: main.uid, account: main.account }, object.account);
}
