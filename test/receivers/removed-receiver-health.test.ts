/**
 * #28.15: a receiver that cannot bind (its port held by another socket) and is then removed from the
 * settings must leave the health registry when the services group stops: after the second
 * GET /api/restart-services, /health no longer names it and answers 200 (it used to stay `failed`,
 * and the box answered 503 until the process restarted).
 */
import { createSocket, type Socket } from 'node:dgram';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INSTALLER_SUBJECT, TokenService } from '../../src/auth/tokens.js';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { defaultSettings } from '../../src/settings/schema.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';
import { LOOPBACK, freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

const SECRET = 'fedcba9876543210'.repeat(4);
const dir = tempDir('vigil-rx-removed-');
const logs: string[] = [];
const logger = createLogger('gw', (line) => logs.push(line), 'debug');
let gateway: Gateway;
let httpPort: number;
let token: string;
let holder: Socket;
let heldPort: number;

async function seed(): Promise<void> {
  const store = new Store(join(dir.path, 'vigil.db'), logger);
  await store.start();
  const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger });
  await settings.start();
  const base = defaultSettings();
  await settings.replaceForInit({ ...base, api: { ...base.api, api_jwt_secret: SECRET } });
  await store.stop();
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  auth = true,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://${LOOPBACK}:${httpPort}${path}`, {
    method,
    headers: {
      ...(auth ? { Authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

test.before(async () => {
  httpPort = await freePort();
  holder = createSocket('udp4');
  await new Promise<void>((resolve) => holder.bind({ port: 0, address: LOOPBACK, exclusive: true }, () => resolve()));
  heldPort = holder.address().port;
  await seed();
  gateway = new Gateway({ dataDir: dir.path, httpPort, httpsPort: 0, host: LOOPBACK, logger });
  await gateway.start();
  const tokens = new TokenService({ secret: () => SECRET, clock: systemClock });
  token = (
    await tokens.issueToken({
      sub: INSTALLER_SUBJECT,
      scopes: ['settings', 'restart_services', 'events', 'objects', 'users'],
      minutes: 5,
    })
  ).token;
});

test.after(async () => {
  await gateway.stop();
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  dir.remove();
});

test('a UDP receiver that could not bind and was then removed leaves /health after restart-services', async () => {
  const receiver = { id: 7, name: 'taken port', port: heldPort, bind_address: LOOPBACK };
  assert.is((await call('PUT', '/api/settings', { receivers: { udp_receivers: [receiver] } })).status, 200);
  assert.is((await call('GET', '/api/restart-services')).status, 200);
  assert.is(gateway.health.get('rx:udp:7')?.state, 'failed', 'the held port makes the receiver fail');
  assert.is((await call('GET', '/health', undefined, false)).status, 503);

  assert.is((await call('PUT', '/api/settings', { receivers: { udp_receivers: [] } })).status, 200);
  assert.is((await call('GET', '/api/restart-services')).status, 200);
  assert.is(gateway.health.get('rx:udp:7'), undefined, 'the removed receiver left the registry');
  const anonymous = await call('GET', '/health', undefined, false);
  assert.is(anonymous.status, 200, anonymous.text);
  assert.not.match(anonymous.text, 'rx:udp:7');
  const status = await call('GET', '/api/status');
  assert.not.match(status.text, 'rx:udp:7');
});

test.run();
