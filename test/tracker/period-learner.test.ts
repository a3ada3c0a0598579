import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMPTY_LEARNER, learnFromLinkTest, type LearnerState } from '../../src/tracker/period-learner.js';

/** Feeds link tests at the given times (s) and returns every period adopted on the way, as [at, period]. */
function run(times: number[], initial: number | null = null): Array<[number, number]> {
  let state: LearnerState = EMPTY_LEARNER;
  let period = initial;
  const adopted: Array<[number, number]> = [];
  for (const at of times) {
    const result = learnFromLinkTest(state, at * 1000, period);
    state = result.state;
    if (result.periodS !== null) {
      period = result.periodS;
      adopted.push([at, period]);
    }
  }
  return adopted;
}

test('two agreeing gaps adopt the larger of them, rounded to a second', () => {
  assert.equal(run([0, 60, 120]), [[120, 60]]);
  assert.equal(run([0, 59.6, 120.2]), [[120.2, 61]]);
});

test('a missed link test (one gap of 2P among gaps of P) never changes the period', () => {
  assert.equal(run([0, 60, 120, 240, 300, 360]), [[120, 60]]);
});

test('jitter within 10 % does not rewrite the period at every link test', () => {
  assert.equal(run([0, 60, 121, 183, 242, 305]), [[121, 61]]);
});

test('a new period is adopted once two gaps agree on it', () => {
  assert.equal(run([0, 60, 120, 150, 180]), [
    [120, 60],
    [180, 30],
  ]);
});

test('gaps under 5 s are repeats: ignored, the older link test stays the anchor', () => {
  assert.equal(run([0, 1, 60, 61, 62, 120]), [[120, 60]]);
});

test('a gap longer than a week is no sample; the next two gaps start afresh', () => {
  assert.equal(run([0, 8 * 86400, 8 * 86400 + 600, 8 * 86400 + 1200]), [[8 * 86400 + 1200, 600]]);
});

test('gaps that never agree teach nothing', () => {
  assert.equal(run([0, 10, 40, 130, 400]), []);
});

test.run();
