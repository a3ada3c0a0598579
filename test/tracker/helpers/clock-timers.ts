/** Timers driven by a ManualClock: advance(ms) moves the clock and fires what falls due, in order. */
import type { ManualClock } from '../../../src/core/clock.js';
import type { TimerApi } from '../../../src/protocols/device-link/command-queue.js';

export class ClockTimers implements TimerApi {
  readonly clock: ManualClock;
  private nextId = 1;
  private readonly pending = new Map<number, { at: number; callback: () => void }>();

  constructor(clock: ManualClock) {
    this.clock = clock;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.set(id, { at: this.clock.now() + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  get armed(): number {
    return this.pending.size;
  }

  /** The delays of the armed timers from now (ms), ascending. */
  delays(): number[] {
    const now = this.clock.now();
    return [...this.pending.values()].map((p) => p.at - now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const until = this.clock.now() + ms;
    for (let guard = 0; ; guard++) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.pending) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      if (guard >= 200_000)
        throw new Error('ClockTimers.advance: more than 200000 timers fell due; advance in smaller steps');
      this.pending.delete(due[0]);
      this.clock.set(Math.max(this.clock.now(), due[1].at));
      due[1].callback();
    }
    this.clock.set(until);
  }
}

/** Lets promise callbacks run (bounded). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
