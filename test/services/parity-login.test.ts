/**
 * Logging in through the page and the API (issue #28 item 2): both call checkLogin
 * (src/services/login-service.ts), so a wrong password is refused by both, and failures on one
 * edge count against the other, per address and per login name.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VIEWER, call, expectResponse } from '../api/harness.js';
import { Browser } from '../web/web-harness.js';
import { createParity, type Parity } from './parity-fixture.js';

let p: Parity;
test.before.each(async () => {
  p = await createParity();
  p.h.actions.length = 0;
});
test.after.each(async () => {
  await p.h.close();
});

const apiLogin = (password: string, address: string) =>
  call(p.h, 'POST', '/api/login', { body: { login: VIEWER.login, password }, address });

test('a wrong password is refused by both edges and opens no session', async () => {
  await expectResponse(await apiLogin('wrong', '192.0.2.70'), 401, 'NOT_LOGGED_IN');
  const page = new Browser(p.h, '192.0.2.71');
  const res = await page.login(VIEWER.login, 'wrong');
  assert.is(res.status, 401);
  assert.match(await res.text(), 'Wrong login or password.');
  assert.not.ok(page.cookies.has('vigil_session'));
  assert.equal(p.h.actions, []);
});

test('failures on the API throttle the same address on the page', async () => {
  for (let i = 0; i < 5; i++) assert.is((await apiLogin(`bad-${i}`, '192.0.2.72')).status, 401);
  const res = await new Browser(p.h, '192.0.2.72').login(VIEWER.login, VIEWER.password);
  assert.is(res.status, 429);
  assert.match(await res.text(), 'Too many failed attempts from this address.');
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
});

test('failures for one login name from many addresses, split over both edges, throttle the name on both', async () => {
  for (let i = 0; i < 5; i++) assert.is((await apiLogin(`bad-${i}`, `198.51.100.${i + 1}`)).status, 401);
  for (let i = 0; i < 5; i++)
    assert.is((await new Browser(p.h, `198.51.100.${i + 11}`).login(VIEWER.login, `bad-${i}`)).status, 401);
  const api = await apiLogin(VIEWER.password, '198.51.100.21');
  await expectResponse(api, 429, 'TOO_MANY_ATTEMPTS');
  const page = await new Browser(p.h, '198.51.100.22').login(VIEWER.login, VIEWER.password);
  assert.is(page.status, 429);
  assert.equal(p.h.actions, []);
});

test.run();
