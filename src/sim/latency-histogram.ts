/**
 * Latency histogram in microseconds with a fixed memory footprint, whatever the number of
 * samples: exact below 128 µs, then 64 buckets per power of two (at most 1/64 ≈ 1.6 % error).
 * Values above 2^32 µs (≈ 71 minutes) land in the last bucket. A million events cost the same
 * ≈ 7 KB (1,728 counters) as ten.
 */
const LINEAR = 128;
const SUB = 64;
/** log2 of the largest value kept apart: 2^32 µs. */
const MAX_EXP = 32;
const BUCKETS = LINEAR + (MAX_EXP - 7) * SUB;
const MAX_US = 2 ** MAX_EXP - 1;

function bucketOf(us: number): number {
  const v = us <= 0 ? 0 : us >= MAX_US ? MAX_US : Math.round(us);
  if (v < LINEAR) return v;
  const exp = 31 - Math.clz32(v); // floor(log2 v), >= 7
  const shift = exp - 6;
  return LINEAR + (exp - 7) * SUB + ((v >>> shift) - SUB);
}

/** Middle of a bucket, in µs. */
function bucketValue(bucket: number): number {
  if (bucket < LINEAR) return bucket;
  const rel = bucket - LINEAR;
  const exp = Math.floor(rel / SUB) + 7;
  const shift = exp - 6;
  const low = ((rel % SUB) + SUB) * 2 ** shift;
  return low + (2 ** shift - 1) / 2;
}

export class LatencyHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  private n = 0;
  private sumUs = 0;
  private minUs = Infinity;
  private maxUs = 0;

  get count(): number {
    return this.n;
  }

  /** One sample in milliseconds (performance.now() differences). */
  record(ms: number): void {
    const us = ms * 1000;
    this.counts[bucketOf(us)]!++;
    this.n++;
    this.sumUs += us;
    if (us < this.minUs) this.minUs = us;
    if (us > this.maxUs) this.maxUs = us;
  }

  /** The p-th percentile (0..100) in ms; 0 when empty. Never above the largest sample. */
  percentile(p: number): number {
    if (this.n === 0) return 0;
    const target = Math.max(1, Math.ceil((p / 100) * this.n));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= target) return Math.min(bucketValue(b), this.maxUs) / 1000;
    }
    return this.maxUs / 1000;
  }

  get meanMs(): number {
    return this.n === 0 ? 0 : this.sumUs / this.n / 1000;
  }

  get maxMs(): number {
    return this.maxUs / 1000;
  }

  get minMs(): number {
    return this.n === 0 ? 0 : this.minUs / 1000;
  }

  reset(): void {
    this.counts.fill(0);
    this.n = 0;
    this.sumUs = 0;
    this.minUs = Infinity;
    this.maxUs = 0;
  }
}
