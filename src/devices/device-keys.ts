/**
 * Who may prove or enrol which UID on the device link (docs/device-link.md §4.4): the key on
 * record, and whether the UID may enrol now. A UID the gateway knows (an object with that UID, or
 * a key row) never enrols on its own: only an installer's reset opens a window for it. Neither does
 * a HELLO naming the account of a plain panel (an object without a UID on its receiver): the ingest
 * would adopt that object for the UID (its address, and the commands sent to it) and hand it to
 * whoever said HELLO first. A new UID naming an account some other UID device reports with gets an
 * object of its own and takes nothing. Otherwise a UID the gateway has never seen enrols on a
 * receiver whose `link_enrolment` is `open`.
 */
import type { DeviceKeyState } from '../protocols/device-link/hello-handler.js';
import type { DeviceKeyRecord } from '../store/device-keys-repo.js';

/** Receiver setting `link_enrolment` (docs/settings.md §receivers). */
export type LinkEnrolment = 'open' | 'closed';

/** Where a HELLO says the device reports: its DC-09 account ('' when it named none) on its receiver. */
export interface HelloPlace {
  readonly account: string;
  readonly receiverId: number;
}

export interface DeviceKeyDirectory {
  state(uid: string, now: number, enrolment: LinkEnrolment, place?: HelloPlace): DeviceKeyState;
  /**
   * Stores the key a successful enrolment derived (a command to the store's one writer, docs/store.md
   * §One writer); resolves once it is stored. Meanwhile state() counts the key as on record, so a
   * second connection enrolling the same UID is refused: the first one wins.
   */
  enrol(uid: string, key: Buffer): Promise<void>;
}

/** The store parts read and written (src/store/store.ts Store fits). */
export interface DeviceKeyStore {
  readonly deviceKeys: { get(uid: string): DeviceKeyRecord | null };
  readonly objects: {
    findByUid(uid: string): unknown;
    /** Main objects with this account on the receiver. */
    findByAccount(account: string, receiverId: number): readonly { readonly uid: string | null }[];
  };
  readonly write: { readonly deviceKeys: { enrol(uid: string, key: Uint8Array): Promise<void> } };
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
  /** Keys sent to the writer and not answered yet. */
  private readonly storing = new Map<string, Buffer>();

  constructor(store: DeviceKeyStore) {
    this.store = store;
  }

  state(uid: string, now: number, enrolment: LinkEnrolment, place?: HelloPlace): DeviceKeyState {
    const storing = this.storing.get(uid);
    if (storing) return { key: storing, mayEnrol: false };
    const record = this.store.deviceKeys.get(uid);
    // An object with the UID makes it known even without a key row (devices from before version 2);
    // a plain panel's object with the HELLO's account is that panel's, never a stranger's to take.
    const known =
      record !== null ||
      this.store.objects.findByUid(uid) !== null ||
      (place !== undefined && place.account !== '' && this.plainPanel(place));
    return keyState(record, known, now, enrolment);
  }

  private plainPanel(place: HelloPlace): boolean {
    return this.store.objects.findByAccount(place.account, place.receiverId).some((o) => o.uid === null);
  }

  async enrol(uid: string, key: Buffer): Promise<void> {
    this.storing.set(uid, key);
    try {
      await this.store.write.deviceKeys.enrol(uid, key);
    } finally {
      this.storing.delete(uid);
    }
  }
}

/** Keys in memory, for a registry without a store (tests of other parts, benches). */
export class MemoryDeviceKeys implements DeviceKeyDirectory {
  private readonly records = new Map<string, DeviceKeyRecord>();

  state(uid: string, now: number, enrolment: LinkEnrolment): DeviceKeyState {
    const record = this.records.get(uid) ?? null;
    return keyState(record, record !== null, now, enrolment);
  }

  async enrol(uid: string, key: Buffer): Promise<void> {
    this.records.set(uid, { uid, key, enrolUntil: null, updatedAt: 0 });
  }
}
