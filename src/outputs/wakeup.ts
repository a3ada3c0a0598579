/** A one-slot wake-up: the output loop waits on it; new journal events and stop() ring it. */
export class Wakeup {
  private waiter: (() => void) | null = null;
  private rung = false;

  /** Wakes the current wait, or makes the next wait return at once. */
  ring(): void {
    const waiter = this.waiter;
    if (waiter) waiter();
    else this.rung = true;
  }

  /** Resolves on ring() or after `ms`, whichever comes first. */
  wait(ms: number): Promise<void> {
    if (this.rung) {
      this.rung = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiter = null;
        this.rung = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.waiter = done;
    });
  }
}

/** Sleeps that stop() cuts short: once stopped, a sleep returns at once until start() is called again. */
export class Sleeps {
  private readonly waiters = new Set<() => void>();
  private stopped = false;

  start(): void {
    this.stopped = false;
  }

  sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
  }

  stop(): void {
    this.stopped = true;
    for (const wake of [...this.waiters]) wake();
  }
}
