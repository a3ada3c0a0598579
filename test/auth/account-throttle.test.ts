import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountThrottle } from '../../src/auth/account-throttle.js';
import { ManualClock } from '../../src/core/clock.js';

function fail(throttle: AccountThrottle, login: string, address: string) {
  assert.ok(throttle.begin(login, address).allowed, `attempt from ${address} should be allowed`);
  return throttle.finish(login, address, 'failure');
}

test('ten failures for one login from ten addresses are free; the eleventh waits 1 s, doubling, at most 60 s', () => {
  const clock = new ManualClock();
  const throttle = new AccountThrottle({ clock });
  for (let i = 0; i < 9; i += 1) assert.is(fail(throttle, 'admin', `10.0.0.${i}`), null);
  assert.equal(fail(throttle, 'admin', '10.0.0.9'), { failures: 10, addresses: 10 });
  assert.equal(throttle.begin('admin', '10.0.1.1'), { allowed: false, retryAfterS: 1 });
  assert.ok(throttle.begin('other', '10.0.1.1').allowed, 'other logins are untouched');
  clock.advance(1000);
  assert.is(fail(throttle, 'admin', '10.0.1.2'), null, 'the burst is reported once per episode');
  assert.equal(throttle.begin('admin', '10.0.1.3'), { allowed: false, retryAfterS: 2 });
  for (let i = 0; i < 20; i += 1) {
    clock.advance(60_000);
    fail(throttle, 'admin', `10.0.2.${i}`);
  }
  assert.equal(throttle.begin('admin', '10.0.3.1'), { allowed: false, retryAfterS: 60 });
});

test('an address that logged in to the account before is not held back by the backoff', () => {
  const clock = new ManualClock();
  const throttle = new AccountThrottle({ clock });
  assert.ok(throttle.begin('admin', '192.0.2.1').allowed);
  throttle.finish('admin', '192.0.2.1', 'success');
  for (let i = 0; i < 30; i += 1) {
    const d = throttle.begin('admin', `10.0.0.${i}`);
    if (d.allowed) throttle.finish('admin', `10.0.0.${i}`, 'failure');
  }
  assert.not.ok(throttle.begin('admin', '10.9.9.9').allowed);
  assert.ok(throttle.begin('admin', '192.0.2.1').allowed, 'the known workstation gets through');
  throttle.finish('admin', '192.0.2.1', 'success');
  assert.ok(throttle.begin('admin', '10.9.9.9').allowed, 'a success ends the backoff');
});

test('a parallel burst gets at most the free attempts in flight', () => {
  const throttle = new AccountThrottle({ clock: new ManualClock() });
  let allowed = 0;
  for (let i = 0; i < 50; i += 1) if (throttle.begin('admin', `10.0.0.${i}`).allowed) allowed += 1;
  assert.is(allowed, 10);
});

test('memory is bounded: the least recently used login is forgotten', () => {
  const throttle = new AccountThrottle({ clock: new ManualClock(), maxAccounts: 3, freeFailures: 1 });
  for (const login of ['a', 'b', 'c', 'd']) fail(throttle, login, '10.0.0.1');
  assert.ok(throttle.begin('a', '10.0.0.1').allowed, 'a was forgotten');
  assert.not.ok(throttle.begin('d', '10.0.0.1').allowed);
});

test.run();
