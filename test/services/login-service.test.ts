/** checkLogin (src/services/login-service.ts) with the real throttle, settings, store and tokens. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkLogin } from '../../src/services/login-service.js';
import { OPERATOR, createHarness, type Harness } from '../api/harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

const attempt = (login: string, password: string, address = '192.0.2.90') =>
  checkLogin(h.deps, h.deps.logger, address, async () => ({ login, password }));

test('malformed credentials are invalid and no password is checked', async () => {
  assert.equal(await checkLogin(h.deps, h.deps.logger, '192.0.2.90', async () => null), { kind: 'invalid' });
});

test('a wrong password and an unknown login are both refused', async () => {
  assert.equal(await attempt(OPERATOR.login, 'wrong'), { kind: 'refused' });
  assert.equal(await attempt('nobody', 'wrong'), { kind: 'refused' });
});

test('the token carries the user scopes plus the grants', async () => {
  const ok = await attempt(OPERATOR.login, OPERATOR.password);
  assert.is(ok.kind, 'ok');
  const claims = await h.deps.tokens.verifyToken(ok.kind === 'ok' ? ok.token : '');
  assert.equal([...claims.scopes].sort(), ['device_control', 'events', 'objects']);
});

test('five failures from one address throttle it, before the credentials are read', async () => {
  for (let i = 0; i < 5; i++) assert.is((await attempt(OPERATOR.login, `bad-${i}`)).kind, 'refused');
  let read = false;
  const outcome = await checkLogin(h.deps, h.deps.logger, '192.0.2.90', async () => {
    read = true;
    return { login: OPERATOR.login, password: OPERATOR.password };
  });
  assert.is(outcome.kind, 'throttled');
  assert.is(read, false);
});

test.run();
