import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LatencyHistogram } from '../../src/sim/latency-histogram.js';

test('an empty histogram answers 0 for every percentile', () => {
  const h = new LatencyHistogram();
  assert.is(h.percentile(50), 0);
  assert.is(h.percentile(99), 0);
  assert.is(h.meanMs, 0);
});

test('values below 128 µs are exact', () => {
  const h = new LatencyHistogram();
  for (let us = 1; us <= 100; us++) h.record(us / 1000);
  assert.is(h.percentile(50), 0.05);
  assert.is(h.percentile(99), 0.099);
  assert.is(h.percentile(100), 0.1);
  assert.is(h.count, 100);
});

test('percentiles of 1..10000 ms stay within 1.6 % and never exceed the largest sample', () => {
  const h = new LatencyHistogram();
  for (let ms = 1; ms <= 10_000; ms++) h.record(ms);
  for (const [p, exact] of [
    [50, 5000],
    [90, 9000],
    [99, 9900],
    [99.9, 9990],
  ] as const) {
    const got = h.percentile(p);
    assert.ok(Math.abs(got - exact) / exact < 0.016, `p${p}: ${got} vs ${exact}`);
  }
  assert.ok(h.percentile(100) <= 10_000);
  assert.is(h.maxMs, 10_000);
  assert.ok(Math.abs(h.meanMs - 5000.5) < 1e-6);
});

test('a sample beyond 71 minutes lands in the last bucket instead of overflowing', () => {
  const h = new LatencyHistogram();
  h.record(10 * 3600 * 1000);
  assert.ok(h.percentile(50) > 4_000_000);
  h.reset();
  assert.is(h.count, 0);
});

test.run();
