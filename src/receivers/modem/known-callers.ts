/**
 * Which objects a phone number is known for, for test calls (docs/modem.md §Test calls). The rule:
 * a number is known for an object of this modem receiver when the object's SMS came from it; the
 * store keeps it as the object's `remote_address` (the ingest writes the sender there with every
 * SMS it commits), so what was learned survives a restart and is read back at start. An object
 * has one number, the one its latest SMS came from. Numbers compare by their digits only
 * ("+370 600-00000" and "37060000000" are the same); a national form ("860000000") is not
 * matched to an international one.
 */

export interface CallerObject {
  readonly account: string;
  readonly receiverId: number;
  readonly remoteAddress: string | null;
  readonly mainObjectId: number | null;
}

export function numberKey(number: string): string {
  return number.replace(/\D/g, '');
}

export class KnownCallers {
  private readonly receiverId: number;
  /** number key -> accounts. */
  private readonly byNumber = new Map<string, Set<string>>();
  /** account -> number key. */
  private readonly byAccount = new Map<string, string>();

  constructor(receiverId: number) {
    this.receiverId = receiverId;
  }

  /** Reads what the store learned before: main objects of this receiver with a remote address. */
  load(objects: Iterable<CallerObject>): void {
    this.byNumber.clear();
    this.byAccount.clear();
    for (const o of objects) {
      if (o.receiverId === this.receiverId && o.mainObjectId === null && o.remoteAddress) this.learn(o.remoteAddress, o.account);
    }
  }

  /** An SMS from `number` carrying `account`'s message was committed. */
  learn(number: string, account: string): void {
    const key = numberKey(number);
    if (key === '' || account === '') return;
    const old = this.byAccount.get(account);
    if (old === key) return;
    if (old !== undefined) this.byNumber.get(old)?.delete(account);
    this.byAccount.set(account, key);
    let set = this.byNumber.get(key);
    if (!set) this.byNumber.set(key, (set = new Set()));
    set.add(account);
  }

  /** Accounts whose link test a call from `number` is; empty for an unknown or withheld number. */
  accountsFor(number: string): string[] {
    const key = numberKey(number);
    return key === '' ? [] : [...(this.byNumber.get(key) ?? [])];
  }

  get size(): number {
    return this.byAccount.size;
  }
}
