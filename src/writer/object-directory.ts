/**
 * Which object a message belongs to, without a SELECT on the hot path: an in-memory map from
 * (receiver, account) to the main object and from (main object, account) to the related object,
 * filled on first sight. Used only inside the ingest's transaction, so an object it creates is
 * created in the same commit as the events that revealed it.
 *
 * Identity rules are the store's (docs/store.md §Identity). An entry is re-checked against the
 * store when it has not been confirmed for REVALIDATE_MS: retention may delete a lost object,
 * and a device with a UID may have moved to another receiver or account meanwhile.
 */
import type { MainObjectInput, ObjectRecord, ReceiverKind, RelatedObjectInput } from '../store/types.js';

/** The slice of the store's ObjectsRepo this directory uses. */
export interface ObjectsPort {
  get(id: number): ObjectRecord | null;
  findByUid(uid: string): ObjectRecord | null;
  findByAccount(account: string, receiverId?: number): ObjectRecord[];
  findRelated(mainId: number, account: string): ObjectRecord | null;
  upsertMain(input: MainObjectInput): ObjectRecord;
  upsertRelated(mainId: number, account: string, input: RelatedObjectInput): ObjectRecord;
  markSeen(id: number, at: number, remoteAddress: string | null, options?: { ping?: boolean }): void;
  addQuirks(id: number, mask: number): void;
}

/** How long a cached identity is trusted before it is read back once from the store. */
export const REVALIDATE_MS = 10 * 60_000;

interface Entry {
  id: number;
  checkedAt: number;
}

/** Where and when a message was heard (an ingest item is one). */
export interface Sighting {
  readonly receiver: { readonly id: number; readonly kind: ReceiverKind };
  readonly transport: string;
  readonly remoteAddress: string;
  readonly receivedAt: number;
}

export class ObjectDirectory {
  private readonly port: () => ObjectsPort;
  /** receiver id -> account -> main object. */
  private readonly mains = new Map<number, Map<string, Entry>>();
  /** main object id -> account -> related object. */
  private readonly related = new Map<number, Map<string, Entry>>();

  /** `objects` is read at each use: the store hands out its repositories only while open. */
  constructor(objects: () => ObjectsPort) {
    this.port = objects;
  }

  private get objects(): ObjectsPort {
    return this.port();
  }

  /**
   * The main object of `account` on the receiver; created when unknown (the first valid message
   * of an unknown account registers it). New objects are pushed to `registered`.
   */
  main(account: string, s: Sighting, registered: ObjectRecord[]): number {
    const receiverId = s.receiver.id;
    const entry = this.mains.get(receiverId)?.get(account);
    if (
      entry &&
      this.confirmed(
        entry,
        s.receivedAt,
        (o) => o.mainObjectId === null && o.receiverId === receiverId && o.account === account,
      )
    ) {
      return entry.id;
    }
    const found = this.objects.findByAccount(account, receiverId);
    // Both a UID-less panel and a UID device may report this account here: the UID-less row is
    // the exact identity match (receiver, account), the UID device the next best.
    const known = found.find((o) => o.uid === null) ?? found[0];
    const id = known ? known.id : this.create(account, s, registered);
    this.remember(this.mains, receiverId, account, id, s.receivedAt);
    return id;
  }

  /** The related object `account` carried by main device `mainId`; created when unknown. */
  relatedOf(mainId: number, account: string, s: Sighting, registered: ObjectRecord[]): number {
    const entry = this.related.get(mainId)?.get(account);
    if (entry && this.confirmed(entry, s.receivedAt, (o) => o.mainObjectId === mainId && o.account === account))
      return entry.id;
    let record = this.objects.findRelated(mainId, account);
    if (!record) {
      record = this.objects.upsertRelated(mainId, account, { remoteAddress: s.remoteAddress, at: s.receivedAt });
      registered.push(record);
    }
    this.remember(this.related, mainId, account, record.id, s.receivedAt);
    return record.id;
  }

  /** A device identified itself (VL-HELLO): its account on its receiver now means this object. */
  noteMain(record: ObjectRecord, at: number): void {
    if (record.account !== '') this.remember(this.mains, record.receiverId, record.account, record.id, at);
  }

  /** Forgets everything (after a rolled-back transaction the cache may name rows that do not exist). */
  clear(): void {
    this.mains.clear();
    this.related.clear();
  }

  get size(): number {
    let n = 0;
    for (const m of this.mains.values()) n += m.size;
    for (const m of this.related.values()) n += m.size;
    return n;
  }

  private create(account: string, s: Sighting, registered: ObjectRecord[]): number {
    const record = this.objects.upsertMain({
      account,
      receiverId: s.receiver.id,
      receiverKind: s.receiver.kind,
      transport: s.transport,
      remoteAddress: s.remoteAddress,
      // Objects heard through a modem are supervised with the sms_* settings (docs/supervision.md).
      ...(s.receiver.kind === 'modem' ? { sms: true } : {}),
      at: s.receivedAt,
    });
    registered.push(record);
    return record.id;
  }

  private confirmed(entry: Entry, at: number, stillMatches: (o: ObjectRecord) => boolean): boolean {
    if (at - entry.checkedAt < REVALIDATE_MS) return true;
    const record = this.objects.get(entry.id);
    if (!record || !stillMatches(record)) return false;
    entry.checkedAt = at;
    return true;
  }

  private remember(
    maps: Map<number, Map<string, Entry>>,
    outer: number,
    account: string,
    id: number,
    at: number,
  ): void {
    let inner = maps.get(outer);
    if (!inner) {
      inner = new Map();
      maps.set(outer, inner);
    }
    const entry = inner.get(account);
    if (entry) {
      entry.id = id;
      entry.checkedAt = at;
    } else {
      inner.set(account, { id, checkedAt: at });
    }
  }
}
