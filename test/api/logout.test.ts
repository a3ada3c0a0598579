/**
 * #28.7 (logout): POST /logout (the page) and POST /api/logout end the token itself, not only the
 * cookie: the session's JWT is also an API bearer token. The revocation survives a restart (real
 * gateway, real HTTP on loopback, the same data dir), is pruned at the token's expiry, and a user
 * who piles up revoked tokens gets their epoch raised instead of more rows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { Gateway } from '../../src/main.js';
import { MAX_REVOKED_PER_USER } from '../../src/store/revoked-tokens-repo.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Browser, createWebHarness, type WebHarness } from '../web/web-harness.js';
import { ADMIN, OPERATOR, call, expectResponse } from './harness.js';

let h: WebHarness;
test.before.each(async () => {
  h = await createWebHarness();
});
test.after.each(async () => {
  await h.close();
});

async function apiLogin(login: string, password: string): Promise<string> {
  const res = await call(h, 'POST', '/api/login', { body: { login, password } });
  assert.is(res.status, 200);
  return ((await res.json()) as { token: string }).token;
}

test('POST /api/logout ends the bearer token at once; other tokens of the user live on', async () => {
  const token = await apiLogin(ADMIN.login, ADMIN.password);
  const other = await apiLogin(ADMIN.login, ADMIN.password);
  assert.is((await call(h, 'GET', '/api/settings', { token })).status, 200);
  await expectResponse(await call(h, 'POST', '/api/logout', { token }), 200, { success: true });
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 401, 'NOT_LOGGED_IN');
  await expectResponse(await call(h, 'POST', '/api/logout', { token }), 401, 'NOT_LOGGED_IN');
  assert.is((await call(h, 'GET', '/api/settings', { token: other })).status, 200);
  await expectResponse(await call(h, 'POST', '/api/logout'), 401, 'NOT_LOGGED_IN');
  await expectResponse(await call(h, 'GET', '/api/logout', { token: other }), 405, 'Method Not Allowed');
});

test('the page logout ends the session token for the API and for the page', async () => {
  const browser = new Browser(h);
  await browser.login(ADMIN.login, ADMIN.password);
  const token = browser.cookies.get('vigil_session')!;
  assert.is((await call(h, 'GET', '/api/settings', { token })).status, 200);
  const out = await browser.post('/logout', {}, '/');
  assert.is(out.status, 303);
  assert.is(out.headers.get('location'), '/login');
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 401, 'NOT_LOGGED_IN');
  // A copy of the cookie taken before the logout is no session either.
  const replay = await h.app.request(
    'http://localhost/events',
    { headers: { Cookie: `vigil_session=${token}` } },
    { incoming: { socket: { remoteAddress: '192.0.2.50' } } },
  );
  assert.is(replay.status, 303);
  assert.match(replay.headers.get('location')!, /^\/login/);
});

test('revocations are pruned at the token expiry', async () => {
  const short = await h.token(ADMIN.id, undefined, 1);
  const long = await h.token(ADMIN.id, undefined, 60);
  await expectResponse(await call(h, 'POST', '/api/logout', { token: short }), 200, { success: true });
  assert.ok(h.store.revokedTokens.has(decodeJwt(short).jti!));
  h.clock.advance(61_000);
  await expectResponse(await call(h, 'POST', '/api/logout', { token: long }), 200, { success: true });
  assert.is(h.store.revokedTokens.size(), 1, 'the expired one is gone');
  assert.not.ok(h.store.revokedTokens.has(decodeJwt(short).jti!));
  assert.ok(h.store.revokedTokens.has(decodeJwt(long).jti!));
});

test('a user who piles up revoked tokens has every token ended by an epoch raise instead of more rows', async () => {
  const keep = await h.token(OPERATOR.id);
  const admin = await h.token(ADMIN.id);
  for (let i = 0; i < MAX_REVOKED_PER_USER; i += 1) {
    assert.is((await call(h, 'POST', '/api/logout', { token: await h.token(OPERATOR.id) })).status, 200);
  }
  assert.is(h.store.revokedTokens.size(), MAX_REVOKED_PER_USER);
  assert.is((await call(h, 'GET', '/api/objects', { token: keep })).status, 200);
  assert.is((await call(h, 'POST', '/api/logout', { token: await h.token(OPERATOR.id) })).status, 200);
  assert.is(h.store.revokedTokens.size(), 0);
  await expectResponse(await call(h, 'GET', '/api/objects', { token: keep }), 401, 'NOT_LOGGED_IN');
  assert.is((await call(h, 'GET', '/api/settings', { token: admin })).status, 200, 'other users are untouched');
});

test('a logout survives a restart of the gateway', async () => {
  const dir = tempDir();
  const start = async () => {
    const gateway = new Gateway({
      dataDir: dir.path,
      httpPort: await freePort(),
      httpsPort: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    });
    await gateway.start();
    return { gateway, base: `http://127.0.0.1:${gateway.apiPorts().http}` };
  };
  let { gateway, base } = await start();
  try {
    const [name, password] = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8').trim().split('\n') as [string, string];
    const res = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: name, password }),
    });
    const { token } = (await res.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    assert.is((await fetch(`${base}/api/logout`, { method: 'POST', headers: auth })).status, 200);
    await gateway.stop();
    ({ gateway, base } = await start());
    assert.is((await fetch(`${base}/api/settings`, { headers: auth })).status, 401);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
