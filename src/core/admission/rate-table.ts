/**
 * Token buckets by key (a source from source-key.ts, a receiver id, or one key for a door's total):
 * accepts, datagrams, HELLOs, new objects, enrolments, status-output connects (docs/security.md
 * "Admission"). O(1) per call: one Map lookup and a little arithmetic.
 * Bounded: a key is worth keeping only until its bucket is full again; sweep() (the admission's
 * timer) drops those, and a table that reaches `maxEntries` drops the oldest entries at once, down
 * to three quarters. Forgetting a key only gives it a full bucket, as a fresh source would have.
 */

export interface Rate {
  /** Tokens a key gains per second. */
  readonly perS: number;
  /** Bucket size: what a key may spend at once. */
  readonly burst: number;
}

/** A rate of `n` a minute, all of it at once. */
export function perMinute(n: number): Rate {
  return { perS: n / 60, burst: n };
}

/** A rate of `n` an hour, all of it at once. */
export function perHour(n: number): Rate {
  return { perS: n / 3600, burst: n };
}

export const RATE_TABLE_MAX_ENTRIES = 65_536;

interface Bucket {
  tokens: number;
  at: number;
}

export class RateTable {
  private readonly entries = new Map<string, Bucket>();
  private readonly rate: () => Rate;
  private readonly maxEntries: number;

  /** `rate` is read at each use: a settings change applies at once. */
  constructor(rate: () => Rate, maxEntries = RATE_TABLE_MAX_ENTRIES) {
    this.rate = rate;
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Whether `key` has a whole token now (spends nothing). */
  has(key: string, now: number): boolean {
    const entry = this.entries.get(key);
    return entry === undefined ? this.rate().burst >= 1 : this.refill(entry, now) >= 1;
  }

  /** Spends one token of `key`; false (nothing spent) when its bucket is empty. */
  take(key: string, now: number): boolean {
    const entry = this.entry(key, now);
    if (entry.tokens < 1) return false;
    entry.tokens -= 1;
    return true;
  }

  /** Drops the keys whose bucket has filled up again. */
  sweep(now: number): void {
    const burst = this.rate().burst;
    for (const [key, entry] of this.entries) if (this.refill(entry, now) >= burst) this.entries.delete(key);
  }

  private entry(key: string, now: number): Bucket {
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.shrink();
      entry = { tokens: this.rate().burst, at: now };
      this.entries.set(key, entry);
      return entry;
    }
    this.refill(entry, now);
    return entry;
  }

  private refill(entry: Bucket, now: number): number {
    if (now > entry.at) {
      const { perS, burst } = this.rate();
      entry.tokens = Math.min(burst, entry.tokens + ((now - entry.at) * perS) / 1000);
      entry.at = now;
    }
    return entry.tokens;
  }

  /** At the bound: the oldest entries go, down to three quarters (amortised O(1)). */
  private shrink(): void {
    const target = (this.maxEntries * 3) >> 2;
    for (const key of this.entries.keys()) {
      if (this.entries.size <= target) return;
      this.entries.delete(key);
    }
  }
}
