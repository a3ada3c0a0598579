/**
 * data/initial-admin-password goes once it no longer opens the first account (#28.13): a password
 * change through PUT /api/settings (real gateway, real HTTP on loopback), through the page's users
 * form, and a stale file found at start (first boot provisioned the account, or the password was
 * changed while the gateway was down). A save that leaves the password alone keeps the file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { InitialPasswordWatch } from '../../src/init/initial-password-watch.js';
import { ADMIN } from '../api/harness.js';
import { loginToken, startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Browser, createWebHarness } from '../web/web-harness.js';

function putSettings(base: string, token: string, body: unknown): Promise<Response> {
  return fetch(`${base}/api/settings`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const ADMIN_RECORD = {
  id: 1,
  login: 'admin',
  token_time: 720,
  scopes: ['settings', 'users', 'events', 'objects'],
  visible_receivers: { all: true, custom: [] },
};

test('PUT /api/settings changing the admin password removes the file; other saves keep it', async () => {
  const dir = tempDir();
  const { gateway, base } = await startGateway(dir.path);
  const file = join(dir.path, PASSWORD_FILE);
  try {
    const [name, password] = readFileSync(file, 'utf8').trim().split('\n') as [string, string];
    const token = await loginToken(base, name, password);
    assert.is((await putSettings(base, token, { general: { instance_name: 'cabinet-7' } })).status, 200);
    assert.ok(existsSync(file), 'a save that leaves the password alone keeps the file');
    assert.is((await putSettings(base, token, { users: [ADMIN_RECORD] })).status, 200);
    assert.ok(existsSync(file), 'the same user record without a new password keeps the file');
    assert.is(
      (await putSettings(base, token, { users: [{ ...ADMIN_RECORD, password: 'a-new-long-password-7' }] })).status,
      200,
    );
    assert.not.ok(existsSync(file), 'the password changed: the file is gone');
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test('at start a file whose password no longer opens the first account is removed; a valid one stays', async () => {
  const dir = tempDir();
  const file = join(dir.path, PASSWORD_FILE);
  let { gateway } = await startGateway(dir.path);
  await gateway.stop();
  const valid = readFileSync(file, 'utf8');
  try {
    ({ gateway } = await startGateway(dir.path));
    assert.is(readFileSync(file, 'utf8'), valid, 'still the admin password: kept');
    await gateway.stop();
    // A leftover (an interrupted first start, or a password changed while the gateway was down).
    writeFileSync(file, 'admin\nnot-the-password-any-more\n', { mode: 0o600 });
    ({ gateway } = await startGateway(dir.path));
    assert.not.ok(existsSync(file));
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test('the page users form changing the admin password removes the file', async () => {
  const h = await createWebHarness();
  const dir = tempDir();
  const file = join(dir.path, PASSWORD_FILE);
  writeFileSync(file, `admin\n${ADMIN.password}\n`, { mode: 0o600 });
  const watch = new InitialPasswordWatch({ dataDir: dir.path, settings: h.settings, logger: silentLogger });
  try {
    await watch.start();
    assert.ok(existsSync(file), 'matches the admin password: kept at start');
    const admin = new Browser(h);
    await admin.login(ADMIN.login, ADMIN.password);
    const saved = await admin.post(
      '/settings/users',
      {
        'users[0].id': '1',
        'users[0].login': 'admin',
        'users[0].password': 'changed-on-the-page-9',
        'users[0].token_time': '60',
        'users[0].scopes': ['', 'settings', 'users', 'events', 'objects'],
        'users[0].visible_receivers.all': 'true',
        'users[0].visible_receivers.custom': '',
      },
      '/settings/users',
    );
    assert.is(saved.status, 200, await saved.text());
    assert.not.ok(existsSync(file));
  } finally {
    await watch.stop();
    await h.close();
    dir.remove();
  }
});

test.run();
