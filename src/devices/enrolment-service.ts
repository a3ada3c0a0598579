/**
 * Replacing a device on the link (docs/device-link.md §4.4): an installer with `device_control`
 * forgets a device's key and opens an enrolment window for its UID; the next HELLO of that UID
 * that completes an enrolment within the window stores the new device's key. One rule path: the
 * API route (src/api/routes/device-enrolment.ts) only translates HTTP around this function.
 *
 * Rules, in order:
 *   1. the caller needs the scope `device_control`                          -> FORBIDDEN
 *   2. `partial_uid` names one device among the receivers the caller sees
 *      (the same matching as the device commands, §5)                      -> NO_OBJECT / AMBIGUOUS_UID
 *   3. a full `uid` the gateway has never seen (no object, no key) may be opened for enrolment
 *      only by a caller who sees every receiver: nothing ties an unknown UID to a receiver, so a
 *      caller limited to some receivers could otherwise reset another receiver's device. -> NO_OBJECT
 * The key itself never leaves the store; the answer carries the UID and the window's end only.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

/** How long a reset lets the UID enrol: time to swap the panel and power it up. */
export const ENROLMENT_WINDOW_MS = 60 * 60 * 1000;

/** The caller as the API and the page know it (src/api/deps.ts Principal fits). */
export interface EnrolmentPrincipal {
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  /** Receiver ids the caller may see; null means all. */
  readonly visibleReceivers: readonly number[] | null;
}

export interface EnrolmentStore {
  readonly objects: {
    findByPartialUid(partial: string, receiverIds?: readonly number[] | null): ReadonlyArray<{ readonly uid: string | null; readonly receiverId: number }>;
    findByUid(uid: string): unknown;
  };
  readonly deviceKeys: {
    get(uid: string): unknown;
    reset(uid: string, enrolUntil: number): void;
  };
}

export type EnrolmentRequest = { readonly partialUid: string } | { readonly uid: string };

export type EnrolmentOutcome =
  | { readonly ok: true; readonly uid: string; readonly enrolUntil: number }
  | { readonly ok: false; readonly error: 'FORBIDDEN' | 'NO_OBJECT' | 'AMBIGUOUS_UID' };

export interface EnrolmentServiceDeps {
  readonly store: EnrolmentStore;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class DeviceEnrolmentService {
  private readonly deps: EnrolmentServiceDeps;

  constructor(deps: EnrolmentServiceDeps) {
    this.deps = deps;
  }

  /** Forgets the device's key and lets its UID enrol for ENROLMENT_WINDOW_MS. */
  resetDeviceKey(principal: EnrolmentPrincipal, request: EnrolmentRequest): EnrolmentOutcome {
    if (!principal.scopes.has('device_control')) return { ok: false, error: 'FORBIDDEN' };
    const found = this.target(principal, request);
    if (!found.ok) return found;
    const enrolUntil = this.deps.clock.now() + ENROLMENT_WINDOW_MS;
    this.deps.store.deviceKeys.reset(found.uid, enrolUntil);
    this.deps.logger.info('device key reset: enrolment open', { uid: found.uid, by: principal.subject, until: new Date(enrolUntil).toISOString() });
    return { ok: true, uid: found.uid, enrolUntil };
  }

  private target(principal: EnrolmentPrincipal, request: EnrolmentRequest): { ok: true; uid: string } | Extract<EnrolmentOutcome, { ok: false }> {
    const visible = principal.visibleReceivers;
    if ('partialUid' in request) {
      const matches = this.deps.store.objects
        .findByPartialUid(request.partialUid.toUpperCase(), visible)
        .filter((o) => o.uid !== null && (visible === null || visible.includes(o.receiverId)));
      if (matches.length === 0) return { ok: false, error: 'NO_OBJECT' };
      if (matches.length > 1) return { ok: false, error: 'AMBIGUOUS_UID' };
      return { ok: true, uid: matches[0]!.uid! };
    }
    const uid = request.uid.toUpperCase();
    const object = this.deps.store.objects.findByUid(uid) as { receiverId: number } | null;
    if (object) {
      return visible === null || visible.includes(object.receiverId) ? { ok: true, uid } : { ok: false, error: 'NO_OBJECT' };
    }
    // A UID without object: known by its key row alone (retention removed the object) or never seen.
    return visible === null ? { ok: true, uid } : { ok: false, error: 'NO_OBJECT' };
  }
}
