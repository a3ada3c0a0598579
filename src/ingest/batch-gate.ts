/**
 * When the next batch leaves after the writer answered one (docs/receivers.md §Group commit,
 * "Gathering"). Sending what is queued at once splits a fleet that keeps one message in flight
 * per device into two halves that take turns, each commit (each fsync) carrying half the fleet:
 * measured 0.54-0.85 of the durable floor at 10 devices. Instead, once a batch of `a` items is
 * answered with `b` queued, the gate waits until `a + b` items are queued (the answered devices
 * had their ACKs and usually send again within a network round trip) or GATHER_MAX_MS passed,
 * then the whole fleet goes in one commit.
 *
 * Gathering pays only while the fleet comes back faster than the writer commits, or while this
 * thread is busy anyway: otherwise the writer would have committed the first arrivals meanwhile
 * (pipelining, as before). A gather is a miss when it took longer than the recent commits (EWMA of
 * dispatch → answer) or timed out, AND the event loop waited idle for part of it (utilization
 * under BUSY_LOOP): a loop that worked through the whole gather was reading the returning fleet
 * (100 devices on one core come back more slowly than a commit), and pipelining would only have
 * halved its batches. After a miss the next 1, 2, 4 … answers (doubling with each miss, at most
 * MAX_SKIP) send at once, then it tries again; a gather that paid takes one miss back. A paced or
 * sporadic fleet, whose gathers nearly all miss, soon pipelines for MAX_SKIP answers at a time and
 * keeps its latency. A saturating fleet that misses now and then (a GC pause, the writer's turn on
 * a shared core) is back to gathering after a few answers: giving up for 1,000 answers after any
 * one miss cost 10 devices an eighth of their rate and 17 % more CPU per event (bench/ingest.ts,
 * docs/benchmarks.md §Ingest).
 */

import { performance, type EventLoopUtilization } from 'node:perf_hooks';

/**
 * How long a gather waits for its target before it sends what it has, on fast storage: at least this
 * (measured), and the timer that ends it, in libuv's whole milliseconds, adds up to one more (1.4-2.0
 * ms on average at 10 devices, docs/benchmarks.md §Ingest).
 */
export const GATHER_MAX_MS = 1;
/**
 * On slow storage (an SD card: 2-10 ms per flush) a gather may wait up to this share of a commit
 * (EWMA), when that is longer than GATHER_MAX_MS. Waiting costs every device of the batch the wait;
 * sending without the stragglers costs each of them a whole commit more, and the fleet splits into
 * groups that take turns, each flush carrying part of it (docs/writer.md §Slow storage): half a
 * commit is worth waiting for the fleet's round trip, which on a busy box spreads over milliseconds.
 */
export const GATHER_COMMIT_SHARE = 0.5;
/** The longest gather whatever the commits take (a commit stalled by a checkpoint must not stall the next). */
export const GATHER_CAP_MS = 20;
/** A timer that fires this close to the gather's limit ends it (another would wait a whole millisecond more). */
export const TIMER_SLACK_MS = 0.05;
/**
 * Event-loop utilization over a gather from which it counts as busy, never a miss. Logged per
 * 2 s at TCP 100 saturating on one core, 83-99 % of the gathers that would have been misses were
 * ≥ 0.9; at 10 devices 0-63 % (most 0.5-0.7: the loop waits for the devices' round trip); paced
 * at half rate a few per 2 s, most under 0.3 (docs/benchmarks.md §Ingest).
 */
export const BUSY_LOOP = 0.9;
/** The most answers that send at once after misses (one try per 1,000 batches costs ≤ 0.1 %). */
export const MAX_SKIP = 1000;
/** 2 ** (11 - 1) ≥ MAX_SKIP: more misses than this change nothing, and would take as many paid gathers back. */
const MISSES_AT_MAX_SKIP = 11;

export class BatchGate {
  private target = 0;
  private timer: NodeJS.Timeout | null = null;
  private skip = 0;
  /** Misses not yet taken back by gathers that paid (the skip doubles with each). */
  private misses = 0;
  private startedAt = 0;
  /** The event loop's counters when the gather started (performance.eventLoopUtilization). */
  private startedLoop: EventLoopUtilization | null = null;
  /** EWMA of the recent commits' round trips (ms). */
  private commitMs = 0;
  private readonly release: () => void;
  private readonly maxMs: number;
  /** The limit of the gather in progress (ms): GATHER_MAX_MS, or a share of a slow commit. */
  private limitMs = 0;
  /** Gathers that filled up, and that timed out (counters for tests and the bench). */
  readonly stats = { filled: 0, timedOut: 0 };

  /** `release` sends what is queued (called when a gather times out). */
  constructor(release: () => void, maxMs = GATHER_MAX_MS) {
    this.release = release;
    this.maxMs = maxMs;
  }

  /**
   * A batch of `answered` items was answered, `commitMs` after it left, with `queued` items
   * waiting: true to send now, false to gather.
   */
  answered(answered: number, queued: number, commitMs: number): boolean {
    this.cancel();
    this.commitMs = this.commitMs === 0 ? commitMs : this.commitMs * 0.8 + commitMs * 0.2;
    // One answered item leaves nothing to gather (its next frame alone would fill the gather), and
    // arming and clearing the timer every commit cost a single device ~7 % of its rate (bench/ingest.ts).
    if (answered <= 1) return true;
    if (this.skip > 0) {
      this.skip--;
      return true;
    }
    this.target = answered + queued;
    this.startedAt = performance.now();
    this.startedLoop = performance.eventLoopUtilization();
    this.limitMs = Math.max(this.maxMs, Math.min(GATHER_CAP_MS, this.commitMs * GATHER_COMMIT_SHARE));
    this.timer = setTimeout(this.timedOut, this.limitMs);
    return false;
  }

  get gathering(): boolean {
    return this.timer !== null;
  }

  /** The limit of the gather in progress, or of the last one (ms). */
  get limit(): number {
    return this.limitMs;
  }

  /** While gathering: true when `queued` items are enough to send now (the gather then ends). */
  full(queued: number): boolean {
    if (queued < this.target) return false;
    this.stats.filled++;
    // Slower than a commit with the loop idle at times: pipelining would have done better; leave it for a while.
    if (performance.now() - this.startedAt > this.commitMs && !this.loopWasBusy()) this.missed();
    else if (this.misses > 0) this.misses--;
    this.cancel();
    return true;
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private readonly timedOut = (): void => {
    this.timer = null;
    // libuv's clock counts whole milliseconds: on a loop that keeps turning, a 1 ms timer fires as
    // soon as the millisecond turns, 0.2 ms after it was armed on average at 10 devices. Released
    // then, a gather sent 3.6 of 10 items and split the fleet in two (docs/benchmarks.md,
    // §Ingest). So the limit is kept against performance.now().
    const left = this.limitMs - (performance.now() - this.startedAt);
    if (left > TIMER_SLACK_MS) {
      this.timer = setTimeout(this.timedOut, left);
      return;
    }
    this.stats.timedOut++;
    if (!this.loopWasBusy()) this.missed();
    this.release();
  };

  /** Whether the event loop worked through the gather (it never waited idle for long). */
  private loopWasBusy(): boolean {
    return this.startedLoop !== null && performance.eventLoopUtilization(this.startedLoop).utilization >= BUSY_LOOP;
  }

  private missed(): void {
    this.misses = Math.min(this.misses + 1, MISSES_AT_MAX_SKIP);
    this.skip = Math.min(MAX_SKIP, 2 ** (this.misses - 1));
  }
}
