/**
 * Replay cache of one receiver (docs/dc09.md "Replays"). An encrypted DC-09 message carries a
 * timestamp that must pass the time test (§5.5.1.8), which bounds how long a captured frame can
 * be replayed, but inside the window an identical frame would be ACKed and journaled again. The
 * cache remembers, per account, the messages whose events were journaled: key = a SHA-256 digest of
 * the sequence number, the timestamp and the decrypted content (token, receiver, line, data,
 * extended data), so a retransmission that was encrypted again with a fresh pad is recognised too.
 *   - An entry lives for the length of the time window (past + future): later, the same frame
 *     fails the time test and is NAKed anyway.
 *   - A replay is ACKed (the sender may just have missed our ACK) but its events are not
 *     journaled a second time.
 *   - Entries are added only after the events were committed (`remember`): a frame whose commit
 *     failed was never ACKed, and its retransmission must be journaled.
 *   - Bounded: at most `perAccount` entries per account (oldest dropped first) and at most
 *     `accounts` accounts (least recently used dropped first).
 * Pure: no timers, no I/O; the caller passes the time.
 *
 * Every encrypted frame passes here twice (`seen`, then `remember` after its commit), so the hot
 * path keeps Map operations few: an account's recency is a use counter, not a delete and re-insert
 * in the account map, and an over-full account map drops its least recently used sixteenth in one
 * pass (bench/ingest.ts, case tcp:100:aes; docs/benchmarks.md §Ingest).
 *
 * An entry outlives many young-generation collections, so what it holds is copied and promoted
 * for every encrypted frame: the key is the digest alone, one flat 44-character string (≈ 115
 * bytes held per entry; bench/ingest.ts, case tcp:100:aes).
 */
import { hash } from 'node:crypto';
import type { ParsedMessage } from './message.js';

export interface ReplayCacheOptions {
  /** How long an entry is remembered: the receiver's time window, past + future (ms). */
  readonly ttlMs: number;
  readonly perAccount?: number;
  readonly accounts?: number;
}

export const DEFAULT_REPLAYS_PER_ACCOUNT = 256;
export const DEFAULT_REPLAY_ACCOUNTS = 10_000;

/** The replay key of a message, or null when it has no time-tested timestamp (nothing bounds a replay). */
export function replayKey(msg: ParsedMessage): { account: string; key: string } | null {
  if (msg.timestampText === null) return null;
  // One string, one one-shot digest (no Hash object per frame). The sequence (four digits) and the
  // timestamp text (§5.5.1.8 format) hold no NUL, so neither can run into the other or into the
  // content: another sequence or timestamp is always another key (unless SHA-256 collides).
  let content = `${msg.sequence}\u0000${msg.timestampText}\u0000${msg.token}\u0000${msg.receiver ?? ''}\u0000${msg.line ?? ''}\u0000${msg.data ?? ''}`;
  for (const field of msg.extended) content += `\u0000${field.id}\u0000${field.value}`;
  return { account: (msg.account ?? '').toUpperCase(), key: hash('sha256', content, 'base64') };
}

/** One account's entries (key -> expiry, in the order they were remembered) and when it was last used. */
interface AccountEntries {
  readonly keys: Map<string, number>;
  lastUse: number;
}

export class ReplayCache {
  private readonly ttlMs: number;
  private readonly perAccount: number;
  private readonly maxAccounts: number;
  private readonly byAccount = new Map<string, AccountEntries>();
  /** Counts remember() calls: an account's lastUse, so recency needs no re-insert. */
  private uses = 0;

  constructor(options: ReplayCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.perAccount = options.perAccount ?? DEFAULT_REPLAYS_PER_ACCOUNT;
    this.maxAccounts = options.accounts ?? DEFAULT_REPLAY_ACCOUNTS;
  }

  /** True when the message was journaled within the last ttlMs. */
  seen(entry: { account: string; key: string }, now: number): boolean {
    const keys = this.byAccount.get(entry.account)?.keys;
    const expiry = keys?.get(entry.key);
    if (expiry === undefined) return false;
    if (expiry > now) return true;
    keys!.delete(entry.key);
    return false;
  }

  /** Records a message whose events were committed. */
  remember(entry: { account: string; key: string }, now: number): void {
    let account = this.byAccount.get(entry.account);
    if (!account) {
      account = { keys: new Map(), lastUse: 0 };
      this.byAccount.set(entry.account, account);
      if (this.byAccount.size > this.maxAccounts) this.dropLeastRecentAccounts(account);
    }
    account.lastUse = ++this.uses;
    const keys = account.keys;
    const expiry = now + this.ttlMs;
    // A key remembered again (a copy committed twice, docs/dc09.md) goes to the end: oldest-first
    // order is the order of expiry, which the sweep below relies on.
    keys.delete(entry.key);
    keys.set(entry.key, expiry);
    // Oldest first: the expired ones, and any beyond the bound.
    for (const [key, at] of keys) {
      if (keys.size <= this.perAccount && at > now) break;
      keys.delete(key);
    }
  }

  /** Entries held (tests, metrics). */
  size(): number {
    let total = 0;
    for (const account of this.byAccount.values()) total += account.keys.size;
    return total;
  }

  /** Accounts held (tests). */
  accounts(): number {
    return this.byAccount.size;
  }

  /**
   * Over the account bound: drops the least recently used sixteenth (at least one), never `keep`
   * (the account being added). One sort per maxAccounts/16 new accounts, instead of a delete and
   * re-insert in the account map on every remember.
   */
  private dropLeastRecentAccounts(keep: AccountEntries): void {
    // It runs as each account beyond the bound is added: one over, so at least one goes.
    const drop = Math.max(1, Math.floor(this.maxAccounts / 16));
    const byUse = [...this.byAccount].filter(([, a]) => a !== keep).sort((a, b) => a[1].lastUse - b[1].lastUse);
    for (let i = 0; i < drop && i < byUse.length; i++) this.byAccount.delete(byUse[i]![0]);
  }
}
