/**
 * Token lifetime and the 401 challenge (issue #7 defects 5, 8, 10; docs/security.md "Token
 * invalidation", docs/api.md "Authentication and tokens").
 */
import { SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, OPERATOR, SECRET, START, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

async function login(user: { login: string; password: string }): Promise<string> {
  const res = await call(h, 'POST', '/api/login', { body: { login: user.login, password: user.password } });
  assert.is(res.status, 200);
  return ((await res.json()) as { token: string }).token;
}

/** The stored users as a PUT /api/settings patch (hashes left out, so they are kept). */
function users(change: (u: Record<string, unknown>) => Record<string, unknown> | null): unknown[] {
  return h.settings
    .current()
    .users.map(({ password_hash: _hash, ...u }) => change({ ...u }))
    .filter((u) => u !== null);
}

async function putUsers(token: string, list: unknown[]): Promise<void> {
  await expectResponse(await call(h, 'PUT', '/api/settings', { token, body: { users: list } }), 200, { success: true });
}

test('a password change ends every token issued before it; a login afterwards works at once', async () => {
  const admin = await login(ADMIN);
  const before = await login(OPERATOR);
  assert.is((await call(h, 'GET', '/api/status', { token: before })).status, 200);
  await putUsers(
    admin,
    users((u) => (u.id === OPERATOR.id ? { ...u, password: 'changed-pass-1' } : u)),
  );
  await expectResponse(await call(h, 'GET', '/api/status', { token: before }), 401, 'NOT_LOGGED_IN');
  // Same second, same clock: the new token is valid (no iat floor that would refuse it).
  const after = await login({ login: OPERATOR.login, password: 'changed-pass-1' });
  assert.is((await call(h, 'GET', '/api/status', { token: after })).status, 200);
  // The admin's own token is untouched by another user's change.
  assert.is((await call(h, 'GET', '/api/settings', { token: admin })).status, 200);
});

test('an admin changing their own password ends their own earlier token too', async () => {
  const admin = await login(ADMIN);
  await putUsers(
    admin,
    users((u) => (u.id === ADMIN.id ? { ...u, password: 'new-admin-pass' } : u)),
  );
  await expectResponse(await call(h, 'GET', '/api/settings', { token: admin }), 401, 'NOT_LOGGED_IN');
});

test('a user id deleted and re-created does not inherit the tokens of the deleted user', async () => {
  const admin = await login(ADMIN);
  const old = await login(OPERATOR);
  const operator = h.settings.current().users.find((u) => u.id === OPERATOR.id)!;
  await putUsers(
    admin,
    users((u) => (u.id === OPERATOR.id ? null : u)),
  );
  const { password_hash: _hash, ...again } = operator;
  await putUsers(admin, [...users((u) => u), { ...again, login: 'someone-else', password: 'another-pass-1' }]);
  await expectResponse(await call(h, 'GET', '/api/status', { token: old }), 401, 'NOT_LOGGED_IN');
  const fresh = await login({ login: 'someone-else', password: 'another-pass-1' });
  assert.is((await call(h, 'GET', '/api/status', { token: fresh })).status, 200);
});

test('changing scopes or visible receivers (no password) keeps the tokens', async () => {
  const admin = await login(ADMIN);
  const operator = await login(OPERATOR);
  await putUsers(
    admin,
    users((u) => (u.id === OPERATOR.id ? { ...u, token_time: 30 } : u)),
  );
  assert.is((await call(h, 'GET', '/api/status', { token: operator })).status, 200);
});

test('epochs survive a restart of the store (they are in the database)', async () => {
  const admin = await login(ADMIN);
  const before = await login(OPERATOR);
  await putUsers(
    admin,
    users((u) => (u.id === OPERATOR.id ? { ...u, password: 'changed-pass-2' } : u)),
  );
  await h.store.stop();
  await h.store.start();
  await expectResponse(await call(h, 'GET', '/api/status', { token: before }), 401, 'NOT_LOGGED_IN');
});

test('401 carries WWW-Authenticate: Bearer, with error="invalid_token" when a bearer token was refused (RFC 6750 §3)', async () => {
  const none = await call(h, 'GET', '/api/status');
  await expectResponse(none, 401, 'NOT_LOGGED_IN');
  assert.is(none.headers.get('www-authenticate'), 'Bearer');
  const basic = await call(h, 'GET', '/api/settings', { headers: { Authorization: 'Basic YWRtaW46eA==' } });
  assert.is(basic.status, 401);
  assert.is(basic.headers.get('www-authenticate'), 'Bearer');
  const bad = await call(h, 'PUT', '/api/oid-override', { token: 'abc.def.ghi', body: {} });
  await expectResponse(bad, 401, { error: 'NOT_LOGGED_IN' });
  assert.is(bad.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  const good = await login(ADMIN);
  const ok = await call(h, 'GET', '/api/status', { token: good });
  assert.is(ok.status, 200);
  assert.is(ok.headers.get('www-authenticate'), null);
});

test('a token whose iat lies more than 60 s in the future is 401; 60 s of skew is accepted', async () => {
  const sign = (iat: number) =>
    new SignJWT({ scopes: ['restart_services'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('installer')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(new TextEncoder().encode(SECRET));
  const now = START / 1000;
  assert.is((await call(h, 'GET', '/api/status', { token: await sign(now + 60) })).status, 200);
  const future = await call(h, 'GET', '/api/status', { token: await sign(now + 61) });
  await expectResponse(future, 401, 'NOT_LOGGED_IN');
  assert.is(future.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  await expectResponse(
    await call(h, 'GET', '/api/status', { token: await sign(now + 10 * 365 * 86_400) }),
    401,
    'NOT_LOGGED_IN',
  );
});

test.run();
