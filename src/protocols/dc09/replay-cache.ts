/**
 * Replay cache of one receiver (docs/dc09.md "Replays"). An encrypted DC-09 message carries a
 * timestamp that must pass the time test (§5.5.1.8), which bounds how long a captured frame can
 * be replayed, but inside the window an identical frame would be ACKed and journaled again. The
 * cache remembers, per account, the messages whose events were journaled: key = sequence number +
 * timestamp + a SHA-256 digest of the decrypted content (token, receiver, line, data, extended
 * data), so a retransmission that was encrypted again with a fresh pad is recognised too.
 *   - An entry lives for the length of the time window (past + future): later, the same frame
 *     fails the time test and is NAKed anyway.
 *   - A replay is ACKed (the sender may just have missed our ACK) but its events are not
 *     journaled a second time.
 *   - Entries are added only after the events were committed (`remember`): a frame whose commit
 *     failed was never ACKed, and its retransmission must be journaled.
 *   - Bounded: at most `perAccount` entries per account (oldest dropped first) and at most
 *     `accounts` accounts (least recently used dropped first).
 * Pure: no timers, no I/O; the caller passes the time.
 */
import { createHash } from 'node:crypto';
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
  const digest = createHash('sha256');
  digest.update(`${msg.token}\u0000${msg.receiver ?? ''}\u0000${msg.line ?? ''}\u0000${msg.data ?? ''}`);
  for (const field of msg.extended) digest.update(`\u0000${field.id}\u0000`).update(field.value);
  return { account: (msg.account ?? '').toUpperCase(), key: `${msg.sequence}|${msg.timestampText}|${digest.digest('base64')}` };
}

export class ReplayCache {
  private readonly ttlMs: number;
  private readonly perAccount: number;
  private readonly maxAccounts: number;
  /** account -> (key -> expiry); Map order = insertion order, used for LRU and oldest-first. */
  private readonly byAccount = new Map<string, Map<string, number>>();

  constructor(options: ReplayCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.perAccount = options.perAccount ?? DEFAULT_REPLAYS_PER_ACCOUNT;
    this.maxAccounts = options.accounts ?? DEFAULT_REPLAY_ACCOUNTS;
  }

  /** True when the message was journaled within the last ttlMs. */
  seen(entry: { account: string; key: string }, now: number): boolean {
    const keys = this.byAccount.get(entry.account);
    const expiry = keys?.get(entry.key);
    if (expiry === undefined) return false;
    if (expiry > now) return true;
    keys!.delete(entry.key);
    return false;
  }

  /** Records a message whose events were committed. */
  remember(entry: { account: string; key: string }, now: number): void {
    let keys = this.byAccount.get(entry.account);
    if (keys) this.byAccount.delete(entry.account);
    else keys = new Map();
    this.byAccount.set(entry.account, keys);
    keys.delete(entry.key);
    keys.set(entry.key, now + this.ttlMs);
    for (const [key, expiry] of keys) {
      if (keys.size <= this.perAccount && expiry > now) break;
      keys.delete(key);
    }
    while (this.byAccount.size > this.maxAccounts) this.byAccount.delete(this.byAccount.keys().next().value as string);
  }

  /** Entries held (tests, metrics). */
  size(): number {
    let total = 0;
    for (const keys of this.byAccount.values()) total += keys.size;
    return total;
  }
}
