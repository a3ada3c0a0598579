/**
 * How often a security event repeated by a flood (a scanner, a device in a reconnect loop) reaches the journal: at
 * most one event per key per interval, and at most `maxPerInterval` in all per interval. What is held back is counted
 * per key, and the next event of that key says how many it stands for. Memory is bounded (`maxTracked` keys, oldest
 * first out: an evicted key can at most be journaled once more, within the global budget).
 *
 * Used by the device identity conflicts (docs/device-link.md §4.5) and the clients a TCP server output refused
 * (docs/outputs.md §TCP server).
 */
export interface JournalRateLimitOptions {
  readonly intervalMs: number;
  readonly maxPerInterval: number;
  readonly maxTracked: number;
}

export class JournalRateLimit {
  /** Per key: when its last event was journaled, and how many came since. */
  private readonly recent = new Map<string, { at: number; unreported: number }>();
  private windowStart = 0;
  private windowEvents = 0;

  constructor(private readonly options: JournalRateLimitOptions) {}

  /** null: not journaled now (counted); else how many earlier occurrences of the key this event stands for. */
  admit(key: string, now: number): number | null {
    const { intervalMs, maxPerInterval, maxTracked } = this.options;
    if (now - this.windowStart >= intervalMs) {
      this.windowStart = now;
      this.windowEvents = 0;
    }
    const last = this.recent.get(key);
    if (last && now - last.at < intervalMs) {
      last.unreported++;
      return null;
    }
    if (this.windowEvents >= maxPerInterval) {
      if (last) last.unreported++;
      return null;
    }
    this.windowEvents++;
    const unreported = last?.unreported ?? 0;
    this.recent.delete(key);
    this.recent.set(key, { at: now, unreported: 0 });
    if (this.recent.size > maxTracked) this.recent.delete(this.recent.keys().next().value!);
    return unreported;
  }
}
