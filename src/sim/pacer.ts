/**
 * Paces one device's events at a fixed rate on an ideal schedule (start + k * interval), so a
 * late timer is caught up instead of lowering the rate. Devices start at staggered phases so a
 * fleet does not send in lock step. A catch-up never exceeds MAX_CATCH_UP events at once.
 */
const MAX_CATCH_UP = 1000;
/** Timers below this would only burn CPU: several events are released per timer instead. */
const MIN_TIMER_MS = 2;

export class Pacer {
  private readonly intervalMs: number;
  private readonly onDue: (count: number) => void;
  private readonly monotonic: () => number;
  private nextDue = 0;
  private timer: NodeJS.Timeout | null = null;

  /** @param ratePerSecond events per second (> 0). */
  constructor(ratePerSecond: number, onDue: (count: number) => void, monotonic: () => number) {
    this.intervalMs = 1000 / ratePerSecond;
    this.onDue = onDue;
    this.monotonic = monotonic;
  }

  /** @param phase 0..1: where in the first interval this device's first event falls. */
  start(phase: number): void {
    this.stop();
    this.nextDue = this.monotonic() + this.intervalMs * phase;
    this.arm();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    const wait = Math.max(MIN_TIMER_MS, this.nextDue - this.monotonic());
    this.timer = setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    const now = this.monotonic();
    let due = 0;
    while (this.nextDue <= now && due < MAX_CATCH_UP) {
      due++;
      this.nextDue += this.intervalMs;
    }
    // Far behind (a stalled event loop): forget the backlog beyond the cap rather than flood.
    if (this.nextDue <= now) this.nextDue = now + this.intervalMs;
    if (due > 0) this.onDue(due);
    this.arm();
  }
}
