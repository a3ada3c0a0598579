/**
 * Learns an object's link-test period from the gaps between its link tests (docs/supervision.md
 * §Learning). Pure: state in, state out.
 *
 * - A sample is the gap between two consecutive link tests, in seconds.
 * - Gaps shorter than MIN_SAMPLE_S are a repeat or a burst (a panel that retries, or sends a
 *   link test right after connecting): ignored, and the older link test stays the anchor.
 * - Gaps longer than MAX_SAMPLE_S say nothing about a period: the new link test becomes the
 *   anchor without a sample.
 * - A period is adopted when TWO consecutive samples agree (within max(2 s, 10 %)); the larger
 *   of the two is taken (rounded to a whole second: the tolerance covers the rest), so jitter
 *   shortens nothing.
 *   One late or missed link test (a gap of 2P among gaps of P) therefore never changes it.
 * - A new agreed value replaces the period only when it differs from it beyond the same
 *   tolerance, so jitter does not rewrite the stored value at every link test.
 */

export const MIN_SAMPLE_S = 5;
/** One week: the longest link-test period Vigil supervises. */
export const MAX_SAMPLE_S = 7 * 86_400;

export interface LearnerState {
  /** Time of the anchor link test (tracker clock, ms), null before the first. */
  readonly lastTestAt: number | null;
  /** The previous sample (s), null when none is waiting for confirmation. */
  readonly lastSampleS: number | null;
}

export const EMPTY_LEARNER: LearnerState = { lastTestAt: null, lastSampleS: null };

export interface LearnResult {
  readonly state: LearnerState;
  /** A new period (s) to adopt, or null when the current one stands. */
  readonly periodS: number | null;
}

export function agree(a: number, b: number): boolean {
  return Math.abs(a - b) <= Math.max(2, 0.1 * Math.max(a, b));
}

export function learnFromLinkTest(state: LearnerState, at: number, currentPeriodS: number | null): LearnResult {
  if (state.lastTestAt === null) return { state: { lastTestAt: at, lastSampleS: null }, periodS: null };
  const sample = (at - state.lastTestAt) / 1000;
  if (sample < MIN_SAMPLE_S) return { state, periodS: null };
  if (sample > MAX_SAMPLE_S) return { state: { lastTestAt: at, lastSampleS: null }, periodS: null };
  const next: LearnerState = { lastTestAt: at, lastSampleS: sample };
  const previous = state.lastSampleS;
  if (previous === null || !agree(previous, sample)) return { state: next, periodS: null };
  const candidate = Math.max(1, Math.round(Math.max(previous, sample)));
  if (currentPeriodS !== null && agree(currentPeriodS, candidate)) return { state: next, periodS: null };
  return { state: next, periodS: candidate };
}
