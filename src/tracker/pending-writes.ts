/**
 * The tracker's writes in flight: each is a command to the store's one writer (docs/store.md §One
 * writer), sent at once and in order from the synchronous sweep, and settled here. The in-memory
 * supervision state leads, so a failed write is logged and rewritten at the next transition;
 * idle() lets stop() (and tests) wait until every write sent so far has been answered.
 */
export class PendingWrites {
  private readonly pending = new Set<Promise<void>>();

  /** Follows `write`: `onError` hears its rejection. */
  add(write: Promise<unknown>, onError: (err: unknown) => void): void {
    const settled: Promise<void> = write
      .then(() => undefined, onError)
      .finally(() => {
        this.pending.delete(settled);
      });
    this.pending.add(settled);
  }

  /** Resolves once every write added so far (and any added meanwhile) has been answered. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
