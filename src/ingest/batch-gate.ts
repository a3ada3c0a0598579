/**
 * When the next batch leaves after the writer answered one (docs/receivers.md §Group commit,
 * "Gathering"). Sending what is queued at once splits a fleet that keeps one message in flight
 * per device into two halves that take turns, each commit (each fsync) carrying half the fleet:
 * measured 0.54-0.85 of the durable floor at 10 devices. Instead, once a batch of `a` items is
 * answered with `b` queued, the gate waits until `a + b` items are queued (the answered devices
 * had their ACKs and usually send again within a network round trip) or GATHER_MAX_MS passed,
 * then the whole fleet goes in one commit.
 *
 * Devices that do not come back promptly (paced, sporadic traffic) would make every gather wait
 * its full time: after a gather that timed out, the next SKIP_AFTER_TIMEOUT answers send at once.
 */

/** The longest a gather delays a batch (a timer: 1 ms is its floor). */
export const GATHER_MAX_MS = 1;
/** Answers that send at once after a gather timed out. */
export const SKIP_AFTER_TIMEOUT = 64;

export class BatchGate {
  private target = 0;
  private timer: NodeJS.Timeout | null = null;
  private skip = 0;
  private readonly release: () => void;
  private readonly maxMs: number;
  /** Gathers that filled up, and that timed out (counters for tests and the bench). */
  readonly stats = { filled: 0, timedOut: 0 };

  /** `release` sends what is queued (called when a gather times out). */
  constructor(release: () => void, maxMs = GATHER_MAX_MS) {
    this.release = release;
    this.maxMs = maxMs;
  }

  /** A batch of `answered` items was answered with `queued` items waiting: true to send now, false to gather. */
  answered(answered: number, queued: number): boolean {
    this.cancel();
    if (answered === 0) return true;
    if (this.skip > 0) {
      this.skip--;
      return true;
    }
    this.target = answered + queued;
    this.timer = setTimeout(this.timedOut, this.maxMs);
    return false;
  }

  get gathering(): boolean {
    return this.timer !== null;
  }

  /** While gathering: true when `queued` items are enough to send now (the gather then ends). */
  full(queued: number): boolean {
    if (queued < this.target) return false;
    this.stats.filled++;
    this.cancel();
    return true;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly timedOut = (): void => {
    this.timer = null;
    this.stats.timedOut++;
    this.skip = SKIP_AFTER_TIMEOUT;
    this.release();
  };
}
