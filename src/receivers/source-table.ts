/**
 * Per-source state of one IP receiver (docs/receivers.md §Per-source limits): a token bucket (TCP:
 * accepted connections, UDP: datagrams, and so replies) and, for TCP, the number of open
 * connections. Sources are keys from source-key.ts (IPv4 address, IPv6 /64). O(1) per connection
 * or datagram: one Map lookup and a little arithmetic.
 * Bounded: an entry with no open connection is worth keeping only until its bucket is full again;
 * sweep() (the receiver's timer) drops those, and a table that reaches `maxEntries` drops the
 * oldest connection-less entries at once, down to three quarters. A flood from more sources than
 * that is the connection budget's business (connection-budget.ts), not this table's.
 */

export interface SourceLimits {
  /** Tokens a source gains per second. */
  readonly ratePerS: number;
  /** Bucket size: what a source may spend at once (a NAT full of devices reconnecting after a restart). */
  readonly burst: number;
  /** Open connections per source (TCP); Infinity where there are none (UDP). */
  readonly maxConnections: number;
}

export const SOURCE_TABLE_MAX_ENTRIES = 65_536;

interface SourceEntry {
  tokens: number;
  at: number;
  connections: number;
}

/** Why a source was refused; null: admitted. */
export type SourceRefusal = 'rate' | 'connections';

export class SourceTable {
  private readonly entries = new Map<string, SourceEntry>();
  private readonly limits: SourceLimits;
  private readonly maxEntries: number;

  constructor(limits: SourceLimits, maxEntries = SOURCE_TABLE_MAX_ENTRIES) {
    this.limits = limits;
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Spends one token of `key` (UDP: a datagram); false when its bucket is empty. */
  take(key: string, now: number): boolean {
    const entry = this.entry(key, now);
    if (entry.tokens < 1) return false;
    entry.tokens -= 1;
    return true;
  }

  /** A connection from `key` (TCP): spends a token and counts it open, or says why not. */
  open(key: string, now: number): SourceRefusal | null {
    const entry = this.entry(key, now);
    if (entry.tokens < 1) return 'rate';
    if (entry.connections >= this.limits.maxConnections) return 'connections';
    entry.tokens -= 1;
    entry.connections++;
    return null;
  }

  /** A connection admitted by open() closed. */
  close(key: string): void {
    const entry = this.entries.get(key);
    if (entry && entry.connections > 0) entry.connections--;
  }

  connections(key: string): number {
    return this.entries.get(key)?.connections ?? 0;
  }

  /** Drops the entries with no open connection whose bucket has filled up again. */
  sweep(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.connections === 0 && this.refilled(entry, now) >= this.limits.burst) this.entries.delete(key);
    }
  }

  private entry(key: string, now: number): SourceEntry {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.shrink();
      entry = { tokens: this.limits.burst, at: now, connections: 0 };
      this.entries.set(key, entry);
      return entry;
    }
    if (now > entry.at) {
      entry.tokens = this.refilled(entry, now);
      entry.at = now;
    }
    return entry;
  }

  private refilled(entry: SourceEntry, now: number): number {
    return Math.min(this.limits.burst, entry.tokens + ((now - entry.at) * this.limits.ratePerS) / 1000);
  }

  /** At the bound: the oldest entries without connections go, down to three quarters (amortised O(1)). */
  private shrink(): void {
    const target = (this.maxEntries * 3) >> 2;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= target) return;
      if (entry.connections === 0) this.entries.delete(key);
    }
  }
}
