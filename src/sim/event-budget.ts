/**
 * The fleet's event allowance: bounded by a total count (when given) and closed when the run's
 * time is up. Every device takes from the same budget, so `--events 1000` means 1000 over the
 * fleet, whatever the number of devices.
 */
export class EventBudget {
  private remaining: number;
  private closed = false;

  /** @param total null: unbounded in count (the run is still bounded in time). */
  constructor(total: number | null) {
    this.remaining = total ?? Number.POSITIVE_INFINITY;
  }

  /** True when one more event may be sent. */
  take(): boolean {
    if (this.closed || this.remaining <= 0) return false;
    this.remaining--;
    return true;
  }

  /** No more events (the duration ended or the run is stopping). */
  close(): void {
    this.closed = true;
  }

  /** Nothing more will ever be handed out. */
  get exhausted(): boolean {
    return this.closed || this.remaining <= 0;
  }
}
