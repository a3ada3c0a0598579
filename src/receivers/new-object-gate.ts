/**
 * New objects through the admission budget (docs/security.md "Admission", door `new-object`). A
 * message from an account never seen creates an object in the writer thread (ingest/batch-writer.ts),
 * and objects are kept, reloaded at every start and supervised: a stranger sending fresh accounts
 * would grow the table without limit. So before such a frame is queued for its commit, its source
 * (and its receiver, and the gateway as a whole) must have an allowance left; without one the frame
 * is dropped unanswered, as the standard drops a frame the receiver cannot take (SIA DC-09
 * §5.5.1.2: the transmitter repeats it later, or tries its backup receiver), and nothing is stored.
 *
 * This thread cannot ask the writer whether an account exists, so it keeps its own index of the
 * accounts that have objects: loaded from the store when the receivers are first built, and taught
 * by every object registered since (the ingest bus) and every creation it admitted. An account the
 * index does not hold costs one token; the index never says "no" to an object that exists, only
 * "yes" to one that a failed commit or retention removed since (it is reloaded after retention
 * deletes objects), which at most lets that one account be created again without a token.
 * O(1) per frame: two Map lookups.
 *
 * It also tells which accounts are settled: first seen at least SETTLED_MS ago. An ACKed frame of a
 * settled account makes its source a known device (served first at the receivers); a frame of an
 * account its sender made up a minute ago does not, so a stranger cannot earn a device's place just by
 * inventing accounts (docs/security.md "Admission").
 */
import type { Admission } from '../core/admission/admission.js';
import type { LinkedDevice } from '../ingest/types.js';

/** What the index learns an object from. */
export interface AccountRecord {
  readonly account: string;
  readonly receiverId: number;
  readonly mainObjectId: number | null;
  /** When the object was first seen (ms epoch). */
  readonly firstSeen: number;
}

/** How long an account must have had its object before its frames make their source a known device. */
export const SETTLED_MS = 60 * 60_000;

/** A frame the allowance refused (journaled rate-limited by whoever listens, src/internal-events/object-refusals.ts). */
export interface ObjectRefusal {
  readonly receiverId: number;
  readonly source: string;
  readonly account: string;
}

export class NewObjectGate {
  /** Told of every refusal; set by the composition root. */
  onRefused: ((refusal: ObjectRefusal) => void) | null = null;
  private readonly admission: Admission;
  /** receiver id -> account of a main object there -> when it was first seen. */
  private readonly mains = new Map<number, Map<string, number>>();
  /** main object id -> account of a related object it carries -> when it was first seen. */
  private readonly related = new Map<number, Map<string, number>>();

  constructor(admission: Admission) {
    this.admission = admission;
  }

  /** Accounts known now (main and related). */
  get size(): number {
    let n = 0;
    for (const set of this.mains.values()) n += set.size;
    for (const set of this.related.values()) n += set.size;
    return n;
  }

  /** Replaces the index with the store's objects. */
  load(objects: Iterable<AccountRecord>): void {
    this.mains.clear();
    this.related.clear();
    for (const o of objects) this.note(o);
  }

  /** An object exists (registered, or read from the store). */
  note(o: AccountRecord): void {
    if (o.account === '') return;
    if (o.mainObjectId === null) add(this.mains, o.receiverId, o.account, o.firstSeen);
    else add(this.related, o.mainObjectId, o.account, o.firstSeen);
  }

  /** The main object of `account` on the receiver was first seen at least SETTLED_MS ago. */
  settled(receiverId: number, account: string): boolean {
    const firstSeen = this.mains.get(receiverId)?.get(account);
    return firstSeen !== undefined && this.admission.clock.now() - firstSeen >= SETTLED_MS;
  }

  /**
   * May a frame with header `account`, on `receiverId`, from `source`, over a connection linked to
   * `device` (or none), be taken? True when it creates no object, or when the allowance pays for
   * the one it creates (the index then holds the account: later frames cost nothing).
   */
  admit(receiverId: number, account: string, device: LinkedDevice | null, source: string): boolean {
    let map: Map<number, Map<string, number>>;
    let outer: number;
    if (device) {
      // The device's own account, or its first message telling it: no new object (batch-writer.ts).
      if (device.account === '' || device.account.toUpperCase() === account.toUpperCase()) return true;
      map = this.related;
      outer = device.objectId;
    } else {
      map = this.mains;
      outer = receiverId;
    }
    if (map.get(outer)?.has(account)) return true;
    if (!this.admission.newObjects.take(source, receiverId)) {
      this.onRefused?.({ receiverId, source, account });
      return false;
    }
    add(map, outer, account, this.admission.clock.now());
    return true;
  }
}

function add(map: Map<number, Map<string, number>>, outer: number, account: string, firstSeen: number): void {
  let inner = map.get(outer);
  if (!inner) {
    inner = new Map();
    map.set(outer, inner);
  }
  const known = inner.get(account);
  if (known === undefined || firstSeen < known) inner.set(account, firstSeen);
}
