/**
 * Which objects a phone number is known for, for test calls (docs/modem.md §Test calls). A caller ID proves nothing
 * (anyone can send an SMS or call from a number of their choosing), so a number becomes known for an object of this
 * modem receiver only:
 *   - configured: the installer lists it in the receiver's `known_callers` (account + number);
 *   - learned: an encrypted DC-09 frame by SMS for that account, opened with the receiver's key, came from it. The
 *     frame proves the panel wrote the message, not that the sender number is the panel's: a captured frame sent
 *     again from another number would prove the same. So a learned number is replaced only by a frame whose own
 *     timestamp (mandatory in encrypted frames, SIA DC-09 §5.5.1.8) is newer than the one it was learned from.
 * Plain SMS (Contact ID, plain frames, text) teach nothing. An account has at most one learned number (its latest),
 * and any number of configured ones. Numbers compare by their digits only ("+370 600-00000" and "37060000000" are the
 * same); a national form ("860000000") is not matched to an international one.
 */

/** What is learned per account: the sender and the timestamp of the frame it was learned from (ms). */
export interface LearnedCaller {
  readonly number: string;
  readonly at: number;
}

export type LearnedCallers = Record<string, LearnedCaller>;

export function numberKey(number: string): string {
  return number.replace(/\D/g, '');
}

export class KnownCallers {
  /** account -> learned number. */
  private readonly learnedBy = new Map<string, LearnedCaller>();
  /** number key -> accounts it is configured for. */
  private readonly configured = new Map<string, Set<string>>();

  /** The receiver's `known_callers` (settings). */
  configure(list: ReadonlyArray<{ readonly account: string; readonly number: string }>): void {
    this.configured.clear();
    for (const { account, number } of list) {
      const key = numberKey(number);
      if (key === '' || account === '') continue;
      let set = this.configured.get(key);
      if (!set) this.configured.set(key, (set = new Set()));
      set.add(account);
    }
  }

  /** What was learned before (read back from the store at start); malformed entries are skipped. */
  restore(learned: unknown): void {
    this.learnedBy.clear();
    if (typeof learned !== 'object' || learned === null) return;
    for (const [account, value] of Object.entries(learned as Record<string, unknown>)) {
      const v = value as Partial<LearnedCaller> | null;
      if (
        typeof v?.number === 'string' &&
        numberKey(v.number) !== '' &&
        typeof v.at === 'number' &&
        Number.isFinite(v.at)
      ) {
        this.learnedBy.set(account, { number: v.number, at: v.at });
      }
    }
  }

  /**
   * An encrypted frame for `account`, timestamped `at`, came from `number` and committed. True when it is learned (the
   * caller persists it, newer timestamp included); false for a frame not newer than the one learned before.
   */
  learn(number: string, account: string, at: number): boolean {
    if (numberKey(number) === '' || account === '' || !Number.isFinite(at)) return false;
    const old = this.learnedBy.get(account);
    if (old && at <= old.at) return false;
    this.learnedBy.set(account, { number, at });
    return true;
  }

  /** Accounts whose link test a call from `number` is; empty for an unknown or withheld number. */
  accountsFor(number: string): string[] {
    const key = numberKey(number);
    if (key === '') return [];
    const accounts = new Set(this.configured.get(key));
    for (const [account, learned] of this.learnedBy) if (numberKey(learned.number) === key) accounts.add(account);
    return [...accounts];
  }

  /** Everything learned, to persist. */
  learned(): LearnedCallers {
    return Object.fromEntries(this.learnedBy);
  }

  /** Distinct numbers known (configured or learned). */
  get size(): number {
    const keys = new Set(this.configured.keys());
    for (const learned of this.learnedBy.values()) keys.add(numberKey(learned.number));
    return keys.size;
  }
}
