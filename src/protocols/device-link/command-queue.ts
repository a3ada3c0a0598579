/**
 * One command at a time per device (docs/device-link.md §4.3). A device connection owns one
 * queue, so commands to different devices never wait for each other. No sockets: the job sends,
 * the injected timers enforce the deadline, `fail` ends everything when the connection drops.
 */

/** The slice of the timer API the queue needs; tests pass fake timers. */
export interface TimerApi {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: TimerApi = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface QueueJob<R> {
  /** The job's turn has come (send now). Call `settle` once with the result; later calls are ignored. */
  start(settle: (result: R) => void): void;
  /**
   * The deadline passed (or the queue was full). `started` says whether start() ran, so a job
   * that was never sent can answer differently from one the device did not answer.
   */
  expire(started: boolean): R;
}

interface Entry<R> {
  readonly job: QueueJob<R>;
  readonly resolve: (result: R) => void;
  timer: unknown;
  started: boolean;
  settled: boolean;
}

export class CommandQueue<R> {
  private readonly timers: TimerApi;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;
  private current: Entry<R> | null = null;
  private waiting: Entry<R>[] = [];

  /**
   * @param timeoutMs counted from submit(), not from start(): the API caller waits at most this
   *   long in total, queue time included (management API §Limits: 10 s device reply timeout).
   * @param maxWaiting jobs allowed to wait behind the one in flight; more expire at once.
   */
  constructor(timers: TimerApi, timeoutMs: number, maxWaiting = 8) {
    this.timers = timers;
    this.timeoutMs = timeoutMs;
    this.maxWaiting = maxWaiting;
  }

  /** Jobs in flight plus waiting. */
  get size(): number {
    return this.waiting.length + (this.current ? 1 : 0);
  }

  submit(job: QueueJob<R>): Promise<R> {
    if (this.waiting.length >= this.maxWaiting) return Promise.resolve(job.expire(false));
    return new Promise<R>((resolve) => {
      const entry: Entry<R> = { job, resolve, timer: undefined, started: false, settled: false };
      entry.timer = this.timers.setTimeout(() => this.expire(entry), this.timeoutMs);
      this.waiting.push(entry);
      this.pump();
    });
  }

  /** Ends the job in flight and every waiting job with `result` (the device went away). */
  fail(result: R): void {
    const all = this.current ? [this.current, ...this.waiting] : this.waiting;
    this.current = null;
    this.waiting = [];
    for (const entry of all) this.finish(entry, result);
  }

  private pump(): void {
    while (!this.current && this.waiting.length > 0) {
      const entry = this.waiting.shift() as Entry<R>;
      this.current = entry;
      entry.started = true;
      try {
        entry.job.start((result) => this.settle(entry, result));
      } catch {
        // A job that cannot even send is treated as one whose deadline passed.
        this.settle(entry, entry.job.expire(true));
      }
    }
  }

  private expire(entry: Entry<R>): void {
    if (!entry.settled) this.settle(entry, entry.job.expire(entry.started));
  }

  private settle(entry: Entry<R>, result: R): void {
    if (entry.settled) return;
    if (this.current === entry) this.current = null;
    else this.waiting = this.waiting.filter((e) => e !== entry);
    this.finish(entry, result);
    this.pump();
  }

  private finish(entry: Entry<R>, result: R): void {
    if (entry.settled) return;
    entry.settled = true;
    this.timers.clearTimeout(entry.timer);
    entry.resolve(result);
  }
}
