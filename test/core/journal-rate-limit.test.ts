import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JournalRateLimit } from '../../src/core/journal-rate-limit.js';

const limit = () => new JournalRateLimit({ intervalMs: 60_000, maxPerInterval: 3, maxTracked: 2 });

test('one event per key per interval; the next one says how many it stands for', () => {
  const l = limit();
  assert.is(l.admit('a', 0), 0);
  assert.is(l.admit('a', 1_000), null);
  assert.is(l.admit('a', 59_999), null);
  assert.is(l.admit('a', 60_000), 2);
});

test('a global cap per interval holds back new keys, and the window resets', () => {
  const l = new JournalRateLimit({ intervalMs: 60_000, maxPerInterval: 2, maxTracked: 10 });
  assert.is(l.admit('a', 0), 0);
  assert.is(l.admit('b', 0), 0);
  assert.is(l.admit('c', 0), null);
  assert.is(l.admit('c', 60_000), 0);
});

test('memory is bounded: the oldest key is evicted and starts again from zero', () => {
  const l = limit();
  l.admit('a', 0);
  l.admit('a', 1);
  l.admit('b', 2);
  l.admit('c', 3);
  assert.is(l.admit('a', 60_010), 0);
});

test.run();
