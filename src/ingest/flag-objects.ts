/**
 * Which object a datagram (no session) belongs to, on the main thread, for the eventFlags hook
 * only: the tracker groups a UDP device's datagrams into "sessions" by object id
 * (docs/supervision.md §Ignorable startup events), and the flags must be decided before the
 * batch leaves for the writer. The writer stays the authority on identity (it resolves and
 * creates objects inside the transaction); this is a read-only mirror filled from committed
 * batches and, on a miss, from one indexed SELECT on the main connection.
 *
 * An account nobody has registered yet is a new object: its datagram session starts at its
 * first datagram, which is what the tracker decides for an object it has not seen either.
 */
import { REVALIDATE_MS, type ObjectsPort } from './object-directory.js';

interface Entry {
  id: number;
  checkedAt: number;
}

export type FlagObject = { readonly id: number } | { readonly id: null; readonly firstAt: number };

export class FlagObjects {
  private readonly objects: () => Pick<ObjectsPort, 'findByAccount'>;
  private readonly known = new Map<string, Entry>();
  /** Accounts first heard in a batch not yet committed: when their datagram session started. */
  private readonly fresh = new Map<string, number>();

  constructor(objects: () => Pick<ObjectsPort, 'findByAccount'>) {
    this.objects = objects;
  }

  lookup(receiverId: number, account: string, at: number): FlagObject {
    const key = `${receiverId}\u0000${account}`;
    const entry = this.known.get(key);
    if (entry && at - entry.checkedAt < REVALIDATE_MS) return entry;
    const firstAt = this.fresh.get(key);
    if (firstAt !== undefined) return { id: null, firstAt };
    // Same rule as the writer's ObjectDirectory: the UID-less row first, then a UID device.
    const found = this.objects().findByAccount(account, receiverId);
    const object = found.find((o) => o.uid === null) ?? found[0];
    if (object) {
      const known = { id: object.id, checkedAt: at };
      this.known.set(key, known);
      return known;
    }
    this.fresh.set(key, at);
    return { id: null, firstAt: at };
  }

  /** After COMMIT: the object the writer attributed the account to. */
  learn(receiverId: number, account: string, id: number, at: number): void {
    const key = `${receiverId}\u0000${account}`;
    this.fresh.delete(key);
    const entry = this.known.get(key);
    if (entry) {
      entry.id = id;
      entry.checkedAt = at;
    } else {
      this.known.set(key, { id, checkedAt: at });
    }
  }

  /** After a failed batch: what it would have created does not exist. */
  forgetFresh(): void {
    this.fresh.clear();
  }
}
