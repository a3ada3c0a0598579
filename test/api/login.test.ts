import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { decodeJwt } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import { TokenService } from '../../src/auth/tokens.js';
import { ADMIN, OPERATOR, START, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

function login(login: unknown, password: unknown, address = '192.0.2.10'): Promise<Response> {
  return call(h, 'POST', '/api/login', { body: { login, password }, address });
}

test('a good login answers the token and its expiry; the token lives token_time minutes', async () => {
  const res = await login(ADMIN.login, ADMIN.password);
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/json');
  const body = (await res.json()) as { token: string; expires_at: string };
  assert.equal(Object.keys(body), ['token', 'expires_at']);
  assert.is(body.expires_at, '2026-01-01T13:00:00.000Z');
  assert.equal(decodeJwt(body.token), {
    scopes: ['settings', 'users', 'events', 'objects'],
    sub: 'user:1',
    jti: decodeJwt(body.token).jti,
    iat: START / 1000,
    exp: START / 1000 + 3600,
  });
  assert.is((await call(h, 'GET', '/api/settings', { token: body.token })).status, 200);
});

test('the login token carries the user scopes plus the grants', async () => {
  const res = await login(OPERATOR.login, OPERATOR.password);
  const { token } = (await res.json()) as { token: string };
  assert.equal(decodeJwt(token).scopes, ['events', 'objects', 'device_control']);
});

test('wrong password and unknown login are both 401 NOT_LOGGED_IN', async () => {
  await expectResponse(await login(ADMIN.login, 'nope'), 401, 'NOT_LOGGED_IN');
  await expectResponse(await login('ghost', ADMIN.password), 401, 'NOT_LOGGED_IN');
  await expectResponse(await login('ADMIN', ADMIN.password), 401, 'NOT_LOGGED_IN');
});

test('a body that is not {login, password} strings is 400 Invalid request', async () => {
  for (const raw of [
    '',
    'not json',
    '[]',
    '"x"',
    '{"login":"admin"}',
    '{"login":1,"password":"x"}',
    '{"login":"admin","password":null}',
  ]) {
    await expectResponse(await call(h, 'POST', '/api/login', { raw }), 400, 'Invalid request');
  }
});

test('after five failures from one address the next attempt is 429 with Retry-After, even with the right password', async () => {
  for (let i = 0; i < 5; i += 1) await expectResponse(await login(ADMIN.login, `bad-${i}`), 401, 'NOT_LOGGED_IN');
  const refused = await login(ADMIN.login, ADMIN.password);
  assert.is(refused.headers.get('retry-after'), '1');
  await expectResponse(refused, 429, 'TOO_MANY_ATTEMPTS');
  assert.is((await login(ADMIN.login, ADMIN.password, '192.0.2.99')).status, 200, 'another address is not affected');
  h.clock.advance(1000);
  await expectResponse(await login(ADMIN.login, 'bad-6'), 401, 'NOT_LOGGED_IN');
  const longer = await login(ADMIN.login, ADMIN.password);
  assert.is(longer.headers.get('retry-after'), '2');
  assert.is(longer.status, 429);
  h.clock.advance(2000);
  assert.is((await login(ADMIN.login, ADMIN.password)).status, 200);
  await expectResponse(await login(ADMIN.login, 'bad-again'), 401, 'NOT_LOGGED_IN');
});

test('bad bodies do not count as failed logins', async () => {
  for (let i = 0; i < 10; i += 1)
    await expectResponse(await call(h, 'POST', '/api/login', { raw: '{' }), 400, 'Invalid request');
  assert.is((await login(ADMIN.login, ADMIN.password)).status, 200);
});

test('no secret yet: login answers 500 E_3 instead of an unsigned token', async () => {
  const app = createApp({ ...h.deps, tokens: new TokenService({ secret: () => '', clock: h.clock }) });
  const res = await app.request('/api/login', {
    method: 'POST',
    body: JSON.stringify({ login: ADMIN.login, password: ADMIN.password }),
  });
  await expectResponse(res, 500, 'E_3');
});

test('over a real socket the throttle keys on the TCP peer, not on X-Forwarded-For', async () => {
  const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  try {
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
    const { port } = server.address() as AddressInfo;
    const post = (password: string, i: number) =>
      fetch(`http://127.0.0.1:${port}/api/login`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-Forwarded-For': `203.0.113.${i}`,
          'X-Real-IP': `198.51.100.${i}`,
        },
        body: JSON.stringify({ login: ADMIN.login, password }),
      });
    for (let i = 0; i < 5; i += 1) assert.is((await post('wrong', i)).status, 401);
    const refused = await post(ADMIN.password, 6);
    assert.is(refused.status, 429);
    assert.is(await refused.text(), 'TOO_MANY_ATTEMPTS');
    assert.ok(
      h.logs.some((l) => l.includes('login failed') && /address=(::ffff:)?127\.0\.0\.1/.test(l)),
      'failure logged with the peer',
    );
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  }
});

test.run();
