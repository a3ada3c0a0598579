/**
 * Settings and users/grants through the page and the API with the same limited user (issue #28
 * item 2). The operator holds neither `settings` nor `users`: reading or saving any settings field
 * and reading or changing anyone's grants (their own included) is refused by both edges, through
 * src/services/settings-access.ts and src/services/users-service.ts, and nothing changes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, OPERATOR, VIEWER, call, expectResponse } from '../api/harness.js';
import { Browser } from '../web/web-harness.js';
import { createParity, type Parity } from './parity-fixture.js';

let p: Parity;
test.before.each(async () => {
  p = await createParity();
});
test.after.each(async () => {
  await p.h.close();
});

async function pageRefused(res: Response): Promise<void> {
  assert.is(res.status, 403);
  assert.match(await res.text(), 'Your account does not have the permission this view needs.');
}

test('settings: reading and saving are refused on both edges, nothing is saved', async () => {
  const before = JSON.stringify(p.h.settings.current());
  await expectResponse(await p.api('GET', '/api/settings'), 403, 'FORBIDDEN');
  await expectResponse(
    await p.api('PUT', '/api/settings', { body: { general: { instance_name: 'taken-over' } } }),
    403,
    'FORBIDDEN',
  );
  await pageRefused(await p.page.get('/settings'));
  await pageRefused(await p.page.get('/settings/general'));
  await pageRefused(await p.page.post('/settings/general', { instance_name: 'taken-over' }, '/'));
  // Its own account too: visible receivers are part of the users section.
  await pageRefused(await p.page.post('/settings/users', { 'users.0.login': 'operator' }, '/'));
  assert.is(JSON.stringify(p.h.settings.current()), before);
  assert.equal(
    p.h.actions.filter((a) => a.includes('settings')),
    [],
  );
});

test('grants: reading and changing them, its own included, are refused on both edges', async () => {
  await expectResponse(await p.api('GET', `/api/users/${VIEWER.id}/grants`), 403, 'FORBIDDEN');
  await expectResponse(
    await p.api('PUT', `/api/users/${OPERATOR.id}/grants`, { body: { scopes: ['restart_services'] } }),
    403,
    'FORBIDDEN',
  );
  await pageRefused(await p.page.get('/users'));
  await pageRefused(
    await p.page.post(`/users/${OPERATOR.id}/grants`, { scopes: ['device_control', 'restart_services'] }, '/'),
  );
  await pageRefused(await p.page.post(`/users/${VIEWER.id}/grants`, { scopes: 'omit_mpass' }, '/'));
  assert.equal(p.h.store.grants.get(OPERATOR.id), ['device_control']);
  assert.equal(p.h.store.grants.get(VIEWER.id), []);
});

test('an administrator gets the same answers from both edges for an unknown user and an unknown grant', async () => {
  const admin = await p.h.token(ADMIN.id);
  const api = (method: string, path: string, body: unknown) => call(p.h, method, path, { token: admin, body });
  assert.is((await api('PUT', '/api/users/99/grants', { scopes: [] })).status, 404);
  assert.is((await api('PUT', `/api/users/${VIEWER.id}/grants`, { scopes: ['root'] })).status, 400);
  const page = new Browser(p.h, '192.0.2.62');
  assert.is((await page.login(ADMIN.login, ADMIN.password)).status, 303);
  assert.is((await page.post('/users/99/grants', { scopes: [] }, '/users')).status, 404);
  assert.is((await page.post(`/users/${VIEWER.id}/grants`, { scopes: 'root' }, '/users')).status, 400);
  assert.equal(p.h.store.grants.get(VIEWER.id), []);
});

test.run();
