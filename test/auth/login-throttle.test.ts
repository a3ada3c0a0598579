import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { LoginThrottle } from '../../src/auth/login-throttle.js';

function fail(throttle: LoginThrottle, address: string): void {
  const decision = throttle.begin(address);
  assert.ok(decision.allowed, 'attempt should have been allowed');
  throttle.finish(address, 'failure');
}

test('five failures are free; the sixth attempt waits 1 s, then 2 s, 4 s ... doubling', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ clock });
  for (let i = 0; i < 5; i += 1) fail(throttle, '10.0.0.1');
  assert.equal(throttle.begin('10.0.0.1'), { allowed: false, retryAfterS: 1 });
  clock.advance(999);
  assert.equal(throttle.begin('10.0.0.1'), { allowed: false, retryAfterS: 1 });
  clock.advance(1);
  fail(throttle, '10.0.0.1'); // 6th failure: 2 s
  assert.equal(throttle.begin('10.0.0.1'), { allowed: false, retryAfterS: 2 });
  clock.advance(2000);
  fail(throttle, '10.0.0.1'); // 7th: 4 s
  clock.advance(1500);
  assert.equal(throttle.begin('10.0.0.1'), { allowed: false, retryAfterS: 3 });
  clock.advance(2500);
  assert.ok(throttle.begin('10.0.0.1').allowed);
});

test('the delay stops growing at 5 minutes', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ clock });
  for (let i = 0; i < 40; i += 1) {
    fail(throttle, 'a');
    clock.advance(300_000);
  }
  clock.advance(-300_000);
  assert.equal(throttle.begin('a'), { allowed: false, retryAfterS: 300 });
});

test('a success resets the address, other addresses are unaffected', () => {
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ clock });
  for (let i = 0; i < 4; i += 1) fail(throttle, 'a');
  assert.ok(throttle.begin('a').allowed);
  throttle.finish('a', 'success');
  for (let i = 0; i < 5; i += 1) fail(throttle, 'a');
  assert.is(throttle.begin('a').allowed, false);
  assert.ok(throttle.begin('b').allowed);
});

test('attempts in flight count against the free failures: a parallel burst gets at most five through', () => {
  const throttle = new LoginThrottle({ clock: new ManualClock() });
  const verdicts = Array.from({ length: 20 }, () => throttle.begin('burst').allowed);
  assert.is(verdicts.filter(Boolean).length, 5);
  for (let i = 0; i < 5; i += 1) throttle.finish('burst', 'failure');
  assert.equal(throttle.begin('burst'), { allowed: false, retryAfterS: 1 });
});

test('an attempt that checked no password (bad body) neither counts nor leaks its slot', () => {
  const throttle = new LoginThrottle({ clock: new ManualClock() });
  for (let i = 0; i < 50; i += 1) {
    assert.ok(throttle.begin('x').allowed);
    throttle.finish('x', null);
  }
  assert.is(throttle.size(), 0);
});

test('memory stays bounded: the least recently used address is forgotten beyond the cap', () => {
  const throttle = new LoginThrottle({ clock: new ManualClock(), maxAddresses: 100 });
  for (let i = 0; i < 5; i += 1) fail(throttle, 'victim');
  for (let n = 0; n < 1000; n += 1) fail(throttle, `10.1.${n >> 8}.${n & 255}`);
  assert.is(throttle.size(), 100);
  assert.ok(throttle.begin('victim').allowed, 'the oldest address was evicted');
});

test('default cap is 10,000 addresses', () => {
  const throttle = new LoginThrottle({ clock: new ManualClock() });
  for (let n = 0; n < 10_050; n += 1) fail(throttle, `a${n}`);
  assert.is(throttle.size(), 10_000);
});

test.run();
