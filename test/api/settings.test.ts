import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { validateSettingsUpdate } from '../../src/settings/validate.js';
import { ADMIN, SECRET, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
let admin: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
});
test.after.each(async () => {
  await h.close();
});

test('GET /api/settings answers the public view: no JWT secret, no password hashes', async () => {
  const res = await call(h, 'GET', '/api/settings', { token: admin });
  const text = await res.clone().text();
  await expectResponse(res, 200, h.settings.publicView());
  assert.not.ok(text.includes(SECRET));
  assert.not.ok(text.includes('password_hash'));
  assert.not.ok(text.includes('scrypt$'));
});

test('PUT /api/settings with a valid partial update answers {"success":true} and stores it', async () => {
  const res = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { general: { instance_name: 'north-gate' }, tracker: { timeout_tolerance: 0 } },
  });
  await expectResponse(res, 200, { success: true });
  assert.is(h.settings.current().general.instance_name, 'north-gate');
  assert.is(h.settings.current().tracker.timeout_tolerance, 0);
  const stored = h.store.settings.load() as unknown as { general: { instance_name: string } };
  assert.is(stored.general.instance_name, 'north-gate');
  const view = (await (await call(h, 'GET', '/api/settings', { token: admin })).json()) as {
    general: { instance_name: string };
  };
  assert.is(view.general.instance_name, 'north-gate');
});

test('a body that is not a JSON object is 400 "body: must be a JSON object" and changes nothing', async () => {
  for (const raw of ['', '{', 'null', '[]', '[{"general":{}}]', '42', '"general"', 'true']) {
    await expectResponse(
      await call(h, 'PUT', '/api/settings', { token: admin, raw }),
      400,
      'body: must be a JSON object',
    );
  }
  assert.is(h.settings.current().general.instance_name, 'site-7');
});

test('a validation failure is 400 text/plain with one line per violation, and nothing changes', async () => {
  const patch = { api: { api_port: 0 }, tracker: { timeout_multiplier: 101 }, general: { instance_name: 'changed' } };
  const expected = await validateSettingsUpdate(
    h.settings.current(),
    patch,
    defaultValidationEnv({ checkDatabase: async () => null }),
  );
  assert.ok(!expected.ok && expected.errors.length === 2);
  const res = await call(h, 'PUT', '/api/settings', { token: admin, body: patch });
  await expectResponse(res, 400, expected.ok ? '' : expected.errors.join('\n'));
  assert.is(h.settings.current().general.instance_name, 'site-7');
});

test('validation lines never echo a submitted secret', async () => {
  const secret = 'short-secret-value';
  const res = await call(h, 'PUT', '/api/settings', { token: admin, body: { api: { api_jwt_secret: secret } } });
  const text = await res.text();
  assert.is(res.status, 400);
  assert.ok(text.startsWith('api.api_jwt_secret: '), text);
  assert.not.ok(text.includes(secret));
});

test('the settings scope alone may change every section, users included (contract: scope settings)', async () => {
  const settingsOnly = (await h.deps.tokens.issueToken({ sub: 'installer', scopes: ['settings'], minutes: 5 })).token;
  const before = h.settings.current().users;
  const users = [
    ...before.map((u) => ({
      id: u.id,
      login: u.login,
      token_time: u.token_time,
      scopes: [...u.scopes],
      visible_receivers: { all: u.visible_receivers.all, custom: [...u.visible_receivers.custom] },
    })),
    {
      id: 9,
      login: 'carol',
      password: 'carol-pass',
      token_time: 60,
      scopes: ['events'],
      visible_receivers: { all: true, custom: [] },
    },
  ];
  await expectResponse(await call(h, 'PUT', '/api/settings', { token: settingsOnly, body: { users } }), 200, {
    success: true,
  });
  assert.is(h.settings.current().users.length, before.length + 1);
  await expectResponse(
    await call(h, 'PUT', '/api/settings', { token: settingsOnly, body: { general: { instance_name: 'ok' } } }),
    200,
    { success: true },
  );
});

test('a failed save is 500 E_3 and the settings stay as they were', async () => {
  await h.store.stop();
  const res = await call(h, 'PUT', '/api/settings', { token: admin, body: { general: { instance_name: 'lost' } } });
  await expectResponse(res, 500, 'E_3');
  assert.is(h.settings.current().general.instance_name, 'site-7');
  assert.ok(h.logs.some((l) => l.includes('settings update failed')));
});

test('an unexpected exception is logged and answered 500 E_3, the process keeps serving', async () => {
  const broken = {
    current: () => h.settings.current(),
    update: () => Promise.reject(new TypeError('boom')),
    publicView: () => {
      throw new TypeError('view exploded');
    },
  };
  const app = createApp({ ...h.deps, settings: broken });
  const get = await app.request('/api/settings', { headers: { Authorization: `Bearer ${admin}` } });
  await expectResponse(get, 500, 'E_3');
  const put = await app.request('/api/settings', {
    method: 'PUT',
    headers: { Authorization: `Bearer ${admin}` },
    body: '{}',
  });
  await expectResponse(put, 500, 'E_3');
  assert.ok(h.logs.some((l) => l.includes('request failed') && l.includes('view exploded')));
  assert.is((await app.request('/health')).status, 200);
});

test.run();
