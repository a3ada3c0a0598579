import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { loginToken, startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';

test('first start initialises the data dir, shows the password once and the account logs in', async () => {
  const dir = tempDir();
  const banners: string[] = [];
  const { gateway, base } = await startGateway(dir.path, { announce: (t) => banners.push(t) });
  try {
    assert.is(banners.length, 1);
    const [loginName, password] = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8').trim().split('\n') as [
      string,
      string,
    ];
    assert.ok(banners[0]!.includes(password));
    assert.is(statSync(join(dir.path, PASSWORD_FILE)).mode & 0o777, 0o600);
    assert.is(statSync(join(dir.path, 'tls', 'key.pem')).mode & 0o777, 0o600);
    const secret = gateway.settings.current().api.api_jwt_secret;
    assert.is(secret.length, 64);
    const token = await loginToken(base, loginName, password);
    const status = await fetch(`${base}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(status.status, 200);
    assert.match(await status.text(), /\bstorage\b/, '/api/status lists the free-space component');
    const health = await fetch(`${base}/health`);
    assert.is(health.status, 200);
    // The journal's free space is watched from the start (docs/store.md §Free space).
    const storage = gateway.health.get('storage');
    assert.is(storage?.state, 'ok');
    assert.ok(Number(storage?.metrics.free_mib) > 0 && Number(storage?.metrics.total_mib) > 0);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test('settings, secret and accounts survive a restart; a restart never re-initialises the dir', async () => {
  const dir = tempDir();
  let first = await startGateway(dir.path);
  const passwordFile = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8');
  const [loginName, password] = passwordFile.trim().split('\n') as [string, string];
  const token = await loginToken(first.base, loginName, password);
  const put = await fetch(`${first.base}/api/settings`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ general: { instance_name: 'cabinet-7' }, tracker: { timeout_tolerance: 3600 } }),
  });
  assert.is(put.status, 200);
  const secret = first.gateway.settings.current().api.api_jwt_secret;
  await first.gateway.stop();

  const banners: string[] = [];
  first = await startGateway(dir.path, { announce: (t) => banners.push(t) });
  try {
    assert.is(banners.length, 0, 'no second banner');
    assert.is(readFileSync(join(dir.path, PASSWORD_FILE), 'utf8'), passwordFile);
    const settings = first.gateway.settings.current();
    assert.is(settings.api.api_jwt_secret, secret);
    assert.is(settings.general.instance_name, 'cabinet-7');
    assert.is(settings.tracker.timeout_tolerance, 3600);
    // The token issued before the restart is still valid: same secret, same user.
    const status = await fetch(`${first.base}/api/status`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(status.status, 200);
    assert.is(((await status.json()) as { instance_name: string }).instance_name, 'cabinet-7');
  } finally {
    await first.gateway.stop();
    dir.remove();
  }
});

test('health is 503 naming the component while a listener cannot bind, and the process keeps running', async () => {
  const dir = tempDir();
  const blocker = await startGateway(dir.path);
  const port = blocker.gateway.apiPorts().http!;
  const other = tempDir();
  const second = new Gateway({
    dataDir: other.path,
    httpPort: port,
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  try {
    await second.start();
    const failing = second.health.failing().map((c) => c.name);
    assert.ok(failing.includes('api:http'), failing.join(','));
  } finally {
    await second.stop();
    await blocker.gateway.stop();
    dir.remove();
    other.remove();
  }
});

test.run();
