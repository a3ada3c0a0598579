/**
 * Who may prove or enrol which UID on the device link (docs/device-link.md §4.4): the key on
 * record, and whether the UID may enrol now. A UID the gateway knows (an object with that UID, or
 * a key row) never enrols on its own: only an installer's reset opens a window for it. A UID the
 * gateway has never seen enrols on a receiver whose `link_enrolment` is `open`.
 */
import type { DeviceKeyState } from '../protocols/device-link/hello-handler.js';
import type { DeviceKeyRecord } from '../store/device-keys-repo.js';

/** Receiver setting `link_enrolment` (docs/settings.md §receivers). */
export type LinkEnrolment = 'open' | 'closed';

export interface DeviceKeyDirectory {
  state(uid: string, now: number, enrolment: LinkEnrolment): DeviceKeyState;
  /** Stores the key a successful enrolment derived (a routed write, docs/store.md §One writer). */
  enrol(uid: string, key: Buffer): void;
}

/** The store parts read and written (src/store/store.ts Store fits). */
export interface DeviceKeyStore {
  readonly deviceKeys: { get(uid: string): DeviceKeyRecord | null; enrol(uid: string, key: Uint8Array): void };
  readonly objects: { findByUid(uid: string): unknown };
}

export function keyState(
  record: DeviceKeyRecord | null,
  objectKnown: boolean,
  now: number,
  enrolment: LinkEnrolment,
): DeviceKeyState {
  if (record?.key) return { key: record.key, mayEnrol: false };
  const window = record?.enrolUntil ?? null;
  if (window !== null && now < window) return { key: null, mayEnrol: true };
  return { key: null, mayEnrol: enrolment === 'open' && record === null && !objectKnown };
}

export class StoreDeviceKeys implements DeviceKeyDirectory {
  private readonly store: DeviceKeyStore;

  constructor(store: DeviceKeyStore) {
    this.store = store;
  }

  state(uid: string, now: number, enrolment: LinkEnrolment): DeviceKeyState {
    const record = this.store.deviceKeys.get(uid);
    // An object with the UID makes it known even without a key row (devices from before version 2).
    const known = record !== null || this.store.objects.findByUid(uid) !== null;
    return keyState(record, known, now, enrolment);
  }

  enrol(uid: string, key: Buffer): void {
    this.store.deviceKeys.enrol(uid, key);
  }
}

/** Keys in memory, for a registry without a store (tests of other parts, benches). */
export class MemoryDeviceKeys implements DeviceKeyDirectory {
  private readonly records = new Map<string, DeviceKeyRecord>();

  state(uid: string, now: number, enrolment: LinkEnrolment): DeviceKeyState {
    const record = this.records.get(uid) ?? null;
    return keyState(record, record !== null, now, enrolment);
  }

  enrol(uid: string, key: Buffer): void {
    this.records.set(uid, { uid, key, enrolUntil: null, updatedAt: 0 });
  }
}
