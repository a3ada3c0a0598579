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
