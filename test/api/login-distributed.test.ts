/**
 * Distributed guessing of one account (issue #7 defect 4; docs/security.md "Logins"): the
 * per-address throttle alone lets 50 addresses guess freely.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

const login = (password: string, address: string) =>
  call(h, 'POST', '/api/login', { body: { login: ADMIN.login, password }, address });

test('50 wrong passwords for admin from 50 addresses meet the per-account delay after the tenth', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 50; i += 1) statuses.push((await login(`guess-${i}`, `198.51.100.${i + 1}`)).status);
  assert.equal(statuses.slice(0, 10), Array(10).fill(401));
  assert.ok(
    statuses.slice(10).every((s) => s === 429),
    `statuses after the tenth: ${statuses.slice(10).join(',')}`,
  );
  const refused = await login(ADMIN.password, '198.51.100.200');
  await expectResponse(refused, 429, 'TOO_MANY_ATTEMPTS');
  assert.is(refused.headers.get('retry-after'), '1');
});

test('the real admin is not locked out for long: at most 60 s from a new address, never from a known one', async () => {
  assert.is((await login(ADMIN.password, '192.0.2.77')).status, 200);
  for (let i = 0; i < 40; i += 1) {
    await login(`guess-${i}`, `198.51.100.${i + 1}`);
    h.clock.advance(20_000);
  }
  assert.is((await login(ADMIN.password, '192.0.2.77')).status, 200, 'the known address gets in at once');
  for (let i = 0; i < 40; i += 1) {
    h.clock.advance(20_000);
    await login(`guess-${i}`, `203.0.113.${i + 1}`);
  }
  const fresh = await login(ADMIN.password, '192.0.2.99');
  assert.is(fresh.status, 429);
  assert.ok(Number(fresh.headers.get('retry-after')) <= 60, `Retry-After ${fresh.headers.get('retry-after')}`);
  h.clock.advance(60_000);
  assert.is((await login(ADMIN.password, '192.0.2.99')).status, 200, 'after at most 60 s a new address gets in');
});

test.run();
