import { decodeJwt } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, OPERATOR, VIEWER, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
let admin: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
});
test.after.each(async () => {
  await h.close();
});

const INVALID = {
  error: 'scopes: must be an array of device_control, omit_mpass, restart_services, metrics, system_update',
};

async function loginToken(u: { login: string; password: string }): Promise<string> {
  const res = await call(h, 'POST', '/api/login', { body: { login: u.login, password: u.password } });
  return ((await res.json()) as { token: string }).token;
}

test('GET lists a user grants; a user without grants has []', async () => {
  await expectResponse(await call(h, 'GET', '/api/users/2/grants', { token: admin }), 200, {
    user_id: 2,
    scopes: ['device_control'],
  });
  await expectResponse(await call(h, 'GET', '/api/users/3/grants', { token: admin }), 200, { user_id: 3, scopes: [] });
});

test('PUT replaces the grants, drops duplicates, answers them in canonical order, and records who granted', async () => {
  const res = await call(h, 'PUT', '/api/users/3/grants', {
    token: admin,
    body: { scopes: ['restart_services', 'device_control', 'restart_services'] },
  });
  await expectResponse(res, 200, { user_id: 3, scopes: ['device_control', 'restart_services'] });
  assert.equal(h.store.grants.get(3).sort(), ['device_control', 'restart_services']);
  assert.equal(h.store.grants.all().find((g) => g.userId === 3)?.grantedBy, 'user:1');
});

test('a granted scope reaches the next login token and works; revoking takes effect on the next request', async () => {
  await call(h, 'PUT', '/api/users/3/grants', { token: admin, body: { scopes: ['restart_services'] } });
  const viewer = await loginToken(VIEWER);
  assert.equal(decodeJwt(viewer).scopes, ['events', 'restart_services']);
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token: viewer }), 200, { success: true });
  await expectResponse(await call(h, 'PUT', '/api/users/3/grants', { token: admin, body: { scopes: [] } }), 200, {
    user_id: 3,
    scopes: [],
  });
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token: viewer }), 403, 'FORBIDDEN');
  assert.is(h.restarts.count, 1);
});

test('revoking device_control from the operator makes control-device 403 at once', async () => {
  const operator = await loginToken(OPERATOR);
  const body = { partial_uid: 'AB', data: '01' };
  await expectResponse(await call(h, 'POST', '/api/control-device', { token: operator, body }), 200, {
    partial_uid: 'AB',
    error: 'NO_OBJECT',
  });
  await call(h, 'PUT', '/api/users/2/grants', { token: admin, body: { scopes: [] } });
  await expectResponse(await call(h, 'POST', '/api/control-device', { token: operator, body }), 403, 'FORBIDDEN');
});

test('unknown users and ids that are not positive integers are 404 JSON', async () => {
  for (const id of ['99', '0', '-1', 'abc', '1.0', '01']) {
    await expectResponse(await call(h, 'GET', `/api/users/${id}/grants`, { token: admin }), 404, {
      error: 'User not found',
    });
    await expectResponse(await call(h, 'PUT', `/api/users/${id}/grants`, { token: admin, body: { scopes: [] } }), 404, {
      error: 'User not found',
    });
  }
});

test('bad scopes and bad bodies are 400 JSON and change nothing', async () => {
  const bodies = [
    '{',
    '[]',
    '{}',
    '{"scopes":"device_control"}',
    '{"scopes":["settings"]}',
    '{"scopes":["device_control","root"]}',
    '{"scopes":[1]}',
    '{"scopes":[],"user":2}',
  ];
  for (const raw of bodies)
    await expectResponse(await call(h, 'PUT', '/api/users/2/grants', { token: admin, raw }), 400, INVALID);
  assert.equal(h.store.grants.get(2), ['device_control']);
});

test('the grants endpoints need the users scope', async () => {
  const operator = await h.token(OPERATOR.id);
  await expectResponse(await call(h, 'GET', '/api/users/2/grants', { token: operator }), 403, 'FORBIDDEN');
  await expectResponse(
    await call(h, 'PUT', '/api/users/2/grants', { token: operator, body: { scopes: ['omit_mpass'] } }),
    403,
    'FORBIDDEN',
  );
});

test('a store that is not open answers 503 JSON', async () => {
  await h.store.stop();
  await expectResponse(await call(h, 'GET', '/api/users/2/grants', { token: admin }), 503, {
    error: 'Database is not ready',
  });
  await expectResponse(await call(h, 'PUT', '/api/users/2/grants', { token: admin, body: { scopes: [] } }), 503, {
    error: 'Database is not ready',
  });
});

test('deleting a user through PUT /api/settings deletes the grants', async () => {
  const users = h.settings
    .current()
    .users.filter((u) => u.id !== OPERATOR.id)
    .map(({ password_hash: _h, ...u }) => u);
  await expectResponse(await call(h, 'PUT', '/api/settings', { token: admin, body: { users } }), 200, {
    success: true,
  });
  assert.equal(h.store.grants.get(OPERATOR.id), []);
  await expectResponse(await call(h, 'GET', '/api/users/2/grants', { token: admin }), 404, { error: 'User not found' });
});

test.run();
