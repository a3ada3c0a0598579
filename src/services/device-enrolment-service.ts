/**
 * Replacing a device on the link (docs/device-link.md §4.4): an installer with `device_control`
 * forgets a device's key and opens an enrolment window for its UID; the next HELLO of that UID
 * that completes an enrolment within the window stores the new device's key. One rule path: the
 * API route (src/api/routes/device-enrolment.ts) and the page (src/web/routes/device-enrolment.tsx)
 * only translate HTTP around resetDeviceKey.
 *
 * Rules, in order:
 *   1. the caller needs the scope `device_control`                          -> forbidden
 *   2. `partial_uid` names one device among the receivers the caller sees
 *      (the same matching as the device commands, §5)                      -> no-object (also when ambiguous)
 *   3. a full `uid` the gateway has never seen (no object, no key) may be opened for enrolment
 *      only by a caller who sees every receiver: nothing ties an unknown UID to a receiver, so a
 *      caller limited to some receivers could otherwise reset another receiver's device. -> no-object
 * The key itself never leaves the store; the answer carries the UID and the window's end only.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { DEVICE_SCOPE } from './devices-service.js';
import { FORBIDDEN, hasScope, type Forbidden, type Principal } from './principal.js';

/** How long a reset lets the UID enrol: time to swap the panel and power it up. */
export const ENROLMENT_WINDOW_MS = 60 * 60 * 1000;

export interface EnrolmentStore {
  readonly objects: {
    findByPartialUid(
      partial: string,
      receiverIds?: readonly number[] | null,
    ): ReadonlyArray<{ readonly uid: string | null; readonly receiverId: number }>;
    findByUid(uid: string): unknown;
  };
  readonly deviceKeys: {
    get(uid: string): unknown;
  };
  /** The reset is a command to the store's one writer, awaited. */
  readonly write: { readonly deviceKeys: { reset(uid: string, enrolUntil: number): Promise<void> } };
}

export type EnrolmentRequest = { readonly partialUid: string } | { readonly uid: string };

export type DeviceEnrolmentResult =
  | Forbidden
  /** No single device among the caller's receivers (an ambiguous partial UID reveals nothing either). */
  | { readonly kind: 'no-object' }
  | { readonly kind: 'done'; readonly uid: string; readonly enrolUntil: number };

export interface DeviceEnrolmentDeps {
  readonly store: EnrolmentStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Forgets the device's key and lets its UID enrol for ENROLMENT_WINDOW_MS. */
export async function resetDeviceKey(
  deps: DeviceEnrolmentDeps,
  principal: Principal,
  request: EnrolmentRequest,
): Promise<DeviceEnrolmentResult> {
  if (!hasScope(principal, DEVICE_SCOPE)) return FORBIDDEN;
  const uid = targetUid(deps.store, principal, request);
  if (uid === null) return { kind: 'no-object' };
  const enrolUntil = deps.clock.now() + ENROLMENT_WINDOW_MS;
  await deps.store.write.deviceKeys.reset(uid, enrolUntil);
  deps.logger.info('device key reset: enrolment open', {
    uid,
    by: principal.subject,
    until: new Date(enrolUntil).toISOString(),
  });
  return { kind: 'done', uid, enrolUntil };
}

function targetUid(store: EnrolmentStore, principal: Principal, request: EnrolmentRequest): string | null {
  const visible = principal.visibleReceivers;
  if ('partialUid' in request) {
    const matches = store.objects
      .findByPartialUid(request.partialUid.toUpperCase(), visible)
      .filter((o) => o.uid !== null && (visible === null || visible.includes(o.receiverId)));
    return matches.length === 1 ? matches[0]!.uid : null;
  }
  const uid = request.uid.toUpperCase();
  const object = store.objects.findByUid(uid) as { receiverId: number } | null;
  if (object) return visible === null || visible.includes(object.receiverId) ? uid : null;
  // A UID without object: known by its key row alone (retention removed the object) or never seen.
  return visible === null ? uid : null;
}
