/**
 * #28.10: the login throttles bound their memory without handing the eviction to an attacker.
 * A real account's per-name state survives any number of other names tried (before, 10,000 other
 * names pushed it out of the LRU and gave the account its free failures back); the other names stay
 * bounded; IPv6 addresses are counted per /64 and IPv4-mapped addresses as their IPv4 address.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountThrottle } from '../../src/auth/account-throttle.js';
import { sourceKey } from '../../src/core/source-key.js';
import { LoginThrottle } from '../../src/auth/login-throttle.js';
import { ManualClock } from '../../src/core/clock.js';

function fail(throttle: AccountThrottle, login: string, address: string): void {
  assert.ok(throttle.begin(login, address).allowed, `${login} from ${address} should be allowed`);
  throttle.finish(login, address, 'failure');
}

test('trying 10,000 other names never gives a real account its free failures back', () => {
  const clock = new ManualClock();
  const throttle = new AccountThrottle({ clock, knownLogin: (login) => login === 'admin' });
  for (let i = 0; i < 10; i += 1) fail(throttle, 'admin', `10.0.0.${i}`);
  assert.equal(throttle.begin('admin', '10.0.1.1'), { allowed: false, retryAfterS: 1 });
  for (let i = 0; i < 10_001; i += 1) fail(throttle, `guess-${i}`, `10.1.${i >> 8}.${i & 255}`);
  clock.advance(1000);
  // The penalty ran out, the failures did not: one attempt, then 2 s.
  fail(throttle, 'admin', '10.0.2.1');
  assert.equal(throttle.begin('admin', '10.0.2.2'), { allowed: false, retryAfterS: 2 });
  assert.equal(throttle.size(), { accounts: 1, others: 10_000 });
});

test("the names of accounts stay few: a deleted user's idle name is forgotten when they overflow", () => {
  const clock = new ManualClock();
  const known = new Set(['a', 'b', 'c']);
  const throttle = new AccountThrottle({ clock, maxAccounts: 2, knownLogin: (login) => known.has(login) });
  fail(throttle, 'a', '10.0.0.1');
  fail(throttle, 'b', '10.0.0.1');
  known.delete('a');
  fail(throttle, 'c', '10.0.0.1');
  assert.equal(throttle.size(), { accounts: 2, others: 0 });
});

test('IPv6 addresses are counted per /64; IPv4-mapped addresses as IPv4', () => {
  assert.is(sourceKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.is(sourceKey('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  assert.is(sourceKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is(sourceKey('192.0.2.7'), '192.0.2.7');
  assert.is(sourceKey('unknown'), 'unknown');
  const clock = new ManualClock();
  const throttle = new LoginThrottle({ clock });
  for (let i = 1; i <= 5; i += 1) {
    const address = `2001:db8:1:2::${i.toString(16)}`;
    assert.ok(throttle.begin(address).allowed, address);
    throttle.finish(address, 'failure');
  }
  assert.equal(
    throttle.begin('2001:db8:1:2:ffff:ffff:ffff:ffff'),
    { allowed: false, retryAfterS: 1 },
    'same /64: throttled',
  );
  assert.ok(throttle.begin('2001:db8:1:3::1').allowed, 'another /64 is not');
  for (let i = 0; i < 5; i += 1) {
    assert.ok(throttle.begin('192.0.2.9').allowed);
    throttle.finish('192.0.2.9', 'failure');
  }
  assert.not.ok(throttle.begin('::ffff:192.0.2.9').allowed, 'the mapped form is the same address');
});

test.run();
