/**
 * readSettings/saveSettings (src/services/settings-access.ts) and listUsers/readUserGrants/
 * setUserGrants (src/services/users-service.ts) over the real SettingsService and store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../src/core/errors.js';
import { NOT_AN_OBJECT, readSettings, saveSettings } from '../../src/services/settings-access.js';
import { listUsers, readUserGrants, setUserGrants } from '../../src/services/users-service.js';
import { OPERATOR, VIEWER, createHarness, type Harness } from '../api/harness.js';
import { principal } from './principals.js';

let h: Harness;
let deps: { settings: Harness['settings']; store: Harness['store']; logger: Harness['deps']['logger'] };
test.before.each(async () => {
  h = await createHarness();
  deps = { settings: h.settings, store: h.store, logger: h.deps.logger };
});
test.after.each(async () => {
  await h.close();
});

const admin = principal(['settings', 'users'], null, 1);

test('settings: forbidden without the settings scope, whatever the receivers; the view hides secrets', async () => {
  assert.equal(readSettings(deps, principal(['users', 'events', 'objects'])), { kind: 'forbidden' });
  assert.equal(await saveSettings(deps, principal(['users']), { general: { instance_name: 'x' } }), {
    kind: 'forbidden',
  });
  const read = readSettings(deps, admin);
  assert.is(read.kind, 'ok');
  assert.not.match(JSON.stringify(read), 'password_hash');
  assert.not.match(JSON.stringify(read), h.settings.current().api.api_jwt_secret);
});

test('settings: a body that is not an object and an invalid field are invalid, nothing changes', async () => {
  const before = JSON.stringify(h.settings.current());
  assert.equal(await saveSettings(deps, admin, [1]), { kind: 'invalid', errors: [NOT_AN_OBJECT] });
  const bad = await saveSettings(deps, admin, { general: { instance_name: 7 } });
  assert.is(bad.kind, 'invalid');
  assert.match(JSON.stringify(bad), 'general.instance_name');
  assert.is(JSON.stringify(h.settings.current()), before);
});

test('settings: a valid patch is saved and names its sections; a failed save throws STORE_FAILURE and logs', async () => {
  assert.equal(await saveSettings(deps, admin, { general: { instance_name: 'site-8' } }), {
    kind: 'ok',
    sections: ['general'],
  });
  assert.is(h.settings.current().general.instance_name, 'site-8');
  await h.store.stop();
  try {
    await saveSettings(deps, admin, { general: { instance_name: 'site-9' } });
    assert.unreachable('a failed save must throw');
  } catch (err) {
    assert.ok(isVigilError(err, 'STORE_FAILURE'));
  }
  assert.ok(h.logs.some((l) => l.includes('settings update failed')));
  assert.is(h.settings.current().general.instance_name, 'site-8');
});

test('users: records need settings, grants need users, neither is forbidden', () => {
  assert.equal(listUsers(deps, principal(['events'])), { kind: 'forbidden' });
  const records = listUsers(deps, principal(['settings']));
  assert.ok(records.kind === 'ok' && records.users.every((u) => u.record !== null && u.grants === null));
  const grants = listUsers(deps, principal(['users']));
  assert.ok(grants.kind === 'ok' && grants.users.every((u) => u.record === null && u.grants !== null));
});

test('grants: unknown ids are not-found, bad bodies invalid, a change is stored in canonical order', async () => {
  for (const id of ['0', '01', 'abc', '99', undefined])
    assert.equal(readUserGrants(deps, admin, id), { kind: 'not-found' });
  assert.equal(await setUserGrants(deps, principal(['settings']), String(VIEWER.id), { scopes: [] }), {
    kind: 'forbidden',
  });
  assert.equal(await setUserGrants(deps, admin, String(VIEWER.id), { scopes: ['root'] }), { kind: 'invalid' });
  assert.equal(await setUserGrants(deps, admin, String(VIEWER.id), { scopes: [], extra: 1 }), { kind: 'invalid' });
  const ok = await setUserGrants(deps, admin, String(VIEWER.id), {
    scopes: ['restart_services', 'device_control', 'device_control'],
  });
  assert.equal(ok, { kind: 'ok', userId: VIEWER.id, scopes: ['device_control', 'restart_services'] });
  assert.equal(readUserGrants(deps, admin, String(VIEWER.id)), ok);
});

test('grants: a closed store is not-ready', async () => {
  await h.store.stop();
  assert.equal(readUserGrants(deps, admin, String(OPERATOR.id)), { kind: 'not-ready' });
  assert.equal(await setUserGrants(deps, admin, String(OPERATOR.id), { scopes: [] }), { kind: 'not-ready' });
});

test.run();
