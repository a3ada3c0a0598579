import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ADMIN,
  OPERATOR,
  SECRET,
  START,
  TEXT,
  VIEWER,
  call,
  createHarness,
  expectResponse,
  type Harness,
} from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];
const ALL_SCOPES = ['settings', 'users', 'events', 'objects', 'device_control', 'omit_mpass', 'restart_services'];

interface Endpoint {
  path: string;
  methods: string[];
  scope: string | null;
  json: boolean;
}

const PROTECTED: Endpoint[] = [
  { path: '/api/status', methods: ['GET', 'HEAD'], scope: null, json: false },
  { path: '/api/settings', methods: ['GET', 'HEAD', 'PUT'], scope: 'settings', json: false },
  { path: '/api/control-device', methods: ['POST'], scope: 'device_control', json: false },
  { path: '/api/config-device', methods: ['POST'], scope: 'device_control', json: false },
  { path: '/api/restart-services', methods: ['GET'], scope: 'restart_services', json: false },
  { path: '/api/oid-override', methods: ['PUT'], scope: 'objects', json: true },
  { path: '/api/users/2/grants', methods: ['GET', 'HEAD', 'PUT'], scope: 'users', json: false },
];
const OPEN: Endpoint[] = [
  { path: '/health', methods: ['GET', 'HEAD'], scope: null, json: false },
  { path: '/api/login', methods: ['POST'], scope: null, json: false },
];

/** Status, content type and (except for HEAD, which has no body) the exact body. */
async function expectError(res: Response, method: string, status: number, text: string, json: boolean): Promise<void> {
  if (method === 'HEAD') {
    assert.is(res.status, status);
    assert.is(res.headers.get('content-type'), json ? 'application/json' : TEXT);
    assert.is(await res.text(), '');
    return;
  }
  await expectResponse(res, status, json ? { error: text } : text);
}

function installer(scopes: string[]): Promise<string> {
  return h.deps.tokens.issueToken({ sub: 'installer', scopes, minutes: 10 }).then((t) => t.token);
}

test('every method of every protected endpoint without a token is 401 NOT_LOGGED_IN in its format', async () => {
  for (const e of PROTECTED) {
    for (const method of ALL_METHODS) {
      await expectError(await call(h, method, e.path), method, 401, 'NOT_LOGGED_IN', e.json);
    }
  }
});

test('every method an endpoint lacks is 405 Method Not Allowed with Allow, even for an all-scope token', async () => {
  const token = await installer(ALL_SCOPES);
  for (const e of [...PROTECTED, ...OPEN]) {
    for (const method of ALL_METHODS.filter((m) => !e.methods.includes(m))) {
      const res = await call(h, method, e.path, { token });
      assert.is(res.headers.get('allow'), e.methods.join(', '), `${method} ${e.path}`);
      await expectError(res, method, 405, 'Method Not Allowed', e.json);
    }
  }
});

test('every allowed method without the endpoint scope is 403 FORBIDDEN in its format', async () => {
  for (const e of PROTECTED.filter((p) => p.scope)) {
    const token = await installer(ALL_SCOPES.filter((s) => s !== e.scope));
    for (const method of e.methods) {
      await expectError(await call(h, method, e.path, { token }), method, 403, 'FORBIDDEN', e.json);
    }
  }
});

test('order of checks: authentication before method before scope', async () => {
  await expectResponse(await call(h, 'DELETE', '/api/settings'), 401, 'NOT_LOGGED_IN');
  const viewer = await h.token(VIEWER.id);
  const wrongMethod = await call(h, 'DELETE', '/api/settings', { token: viewer });
  assert.is(wrongMethod.headers.get('allow'), 'GET, HEAD, PUT');
  await expectResponse(wrongMethod, 405, 'Method Not Allowed');
  await expectResponse(await call(h, 'PUT', '/api/settings', { token: viewer, body: {} }), 403, 'FORBIDDEN');
  await expectResponse(await call(h, 'POST', '/api/oid-override', { token: viewer }), 405, {
    error: 'Method Not Allowed',
  });
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token: viewer, body: {} }), 403, {
    error: 'FORBIDDEN',
  });
});

test('HEAD on /api/restart-services is 405 and restarts nothing; GET restarts', async () => {
  const token = await installer(['restart_services']);
  const head = await call(h, 'HEAD', '/api/restart-services', { token });
  assert.is(head.status, 405);
  assert.is(head.headers.get('allow'), 'GET');
  assert.is(h.restarts.count, 0);
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token }), 200, { success: true });
  assert.is(h.restarts.count, 1);
});

test('malformed Authorization headers are 401', async () => {
  const good = await h.token(ADMIN.id);
  for (const header of [
    'Bearer',
    'Bearer ',
    `Basic ${good}`,
    `Bearer  ${good} x`,
    `Token ${good}`,
    good,
    'Bearer a.b',
    'Bearer e30.e30.',
  ]) {
    await expectResponse(
      await call(h, 'GET', '/api/status', { headers: { Authorization: header } }),
      401,
      'NOT_LOGGED_IN',
    );
  }
  await expectResponse(
    await call(h, 'GET', '/api/status', { headers: { Authorization: `bearer ${good}` } }),
    200,
    await statusBody(),
  );
});

async function statusBody(): Promise<unknown> {
  const res = await call(h, 'GET', '/api/status', { token: await installer([]) });
  return JSON.parse(await res.text());
}

test('forged tokens are 401: alg none, HS512 with the right secret, RS256 with a real key, bad signature', async () => {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const claims = { sub: 'installer', scopes: ALL_SCOPES, iat: START / 1000, exp: START / 1000 + 600 };
  const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  const hs512 = await new SignJWT({ scopes: ALL_SCOPES })
    .setProtectedHeader({ alg: 'HS512' })
    .setSubject('installer')
    .setIssuedAt(START / 1000)
    .setExpirationTime(START / 1000 + 600)
    .sign(new TextEncoder().encode(SECRET));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const rs256 = await new SignJWT({ scopes: ALL_SCOPES })
    .setProtectedHeader({ alg: 'RS256' })
    .setSubject('installer')
    .setIssuedAt(START / 1000)
    .setExpirationTime(START / 1000 + 600)
    .sign(privateKey);
  const good = await installer(ALL_SCOPES);
  const [hd, pl, sig] = good.split('.') as [string, string, string];
  const badSig = `${hd}.${pl}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
  for (const token of [none, hs512, rs256, badSig]) {
    await expectResponse(await call(h, 'GET', '/api/status', { token }), 401, 'NOT_LOGGED_IN');
    await expectResponse(await call(h, 'PUT', '/api/oid-override', { token, body: {} }), 401, {
      error: 'NOT_LOGGED_IN',
    });
  }
  assert.is((await call(h, 'GET', '/api/status', { token: good })).status, 200);
});

test('an expired token is 401 from its exp second on', async () => {
  const token = await h.token(ADMIN.id, ['settings'], 1);
  h.clock.advance(59_000);
  assert.is((await call(h, 'GET', '/api/settings', { token })).status, 200);
  h.clock.advance(1_000);
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 401, 'NOT_LOGGED_IN');
});

test('changing api_jwt_secret through PUT /api/settings invalidates every earlier token at once', async () => {
  const admin = await h.token(ADMIN.id);
  const operator = await h.token(OPERATOR.id);
  const res = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { api: { api_jwt_secret: 'Z'.repeat(64) } },
  });
  await expectResponse(res, 200, { success: true });
  await expectResponse(await call(h, 'GET', '/api/settings', { token: admin }), 401, 'NOT_LOGGED_IN');
  await expectResponse(await call(h, 'GET', '/api/status', { token: operator }), 401, 'NOT_LOGGED_IN');
  const fresh = await h.token(ADMIN.id);
  assert.is((await call(h, 'GET', '/api/settings', { token: fresh })).status, 200);
});

function usersWithout(id: number, change: (u: Record<string, unknown>) => Record<string, unknown> = (u) => u) {
  return h.settings
    .current()
    .users.filter((u) => u.id !== id)
    .map(({ password_hash: _hash, ...u }) => change({ ...u }));
}

test('a token of a user deleted since issue is 401', async () => {
  const admin = await h.token(ADMIN.id);
  const operator = await h.token(OPERATOR.id);
  assert.is((await call(h, 'GET', '/api/status', { token: operator })).status, 200);
  await expectResponse(
    await call(h, 'PUT', '/api/settings', { token: admin, body: { users: usersWithout(OPERATOR.id) } }),
    200,
    { success: true },
  );
  await expectResponse(await call(h, 'GET', '/api/status', { token: operator }), 401, 'NOT_LOGGED_IN');
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token: operator, body: {} }), 401, {
    error: 'NOT_LOGGED_IN',
  });
});

test('a scope removed from the user since issue is 403 on the next request', async () => {
  const admin = await h.token(ADMIN.id);
  const operator = await h.token(OPERATOR.id);
  await h.store.write.objects.upsertMain({
    uid: 'AB',
    account: '1234',
    receiverId: 1,
    receiverKind: 'tcp',
    at: h.clock.now(),
  });
  const body = { uid: 'AB', new_override_oid: '12' };
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token: operator, body }), 200, { success: true });
  const users = [...usersWithout(0, (u) => (u.id === OPERATOR.id ? { ...u, scopes: ['events'] } : u))];
  await expectResponse(await call(h, 'PUT', '/api/settings', { token: admin, body: { users } }), 200, {
    success: true,
  });
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token: operator, body }), 403, {
    error: 'FORBIDDEN',
  });
});

test('a token cannot carry more than the user holds: scopes outside the user record and grants are ignored', async () => {
  const token = await h.token(VIEWER.id, ALL_SCOPES);
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 403, 'FORBIDDEN');
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token }), 403, 'FORBIDDEN');
  assert.is((await call(h, 'GET', '/api/status', { token })).status, 200);
});

test('an installer token has exactly the scopes it was issued with', async () => {
  const token = await installer(['restart_services']);
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token }), 200, { success: true });
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 403, 'FORBIDDEN');
});

test('a token for a user id that never existed is 401', async () => {
  const token = await h.token(99, ['settings']);
  await expectResponse(await call(h, 'GET', '/api/settings', { token }), 401, 'NOT_LOGGED_IN');
});

test('unknown paths are 404 Not Found', async () => {
  await expectResponse(await call(h, 'GET', '/api/nothing'), 404, 'Not Found');
  await expectResponse(await call(h, 'GET', '/api/settings/'), 404, 'Not Found');
});

test.run();
