/**
 * The composition root end to end (src/main.ts): a Gateway whose settings name one TCP and one
 * UDP receiver on loopback; DC-09 events are ACKed, a device-link command goes through the real
 * HTTP listener, and GET /api/restart-services rebuilds the receivers (devices reconnect).
 */
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
import { answer, linkDevice, nextCommand } from './helpers/api.js';
import { TcpDevice, UdpDevice } from './helpers/devices.js';
import { message, tcpRxSettings, udpRxSettings } from './helpers/rig.js';

const SECRET = '0123456789abcdef'.repeat(4);
const dir = tempDir('vigil-gw-');
const logs: string[] = [];
const logger = createLogger('gw', (line) => (process.env.GW_DEBUG ? console.error(line) : logs.push(line)), 'debug');
let gateway: Gateway;
let tcpPort: number;
let udpPort: number;
let httpPort: number;
let token: string;

/** An initialised data dir whose receivers listen on loopback ports chosen for this test. */
async function seed(): Promise<void> {
  const store = new Store(join(dir.path, 'vigil.db'), logger);
  await store.start();
  const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger });
  await settings.start();
  const base = defaultSettings();
  await settings.replaceForInit({
    ...base,
    api: { ...base.api, api_jwt_secret: SECRET },
    receivers: {
      ...base.receivers,
      tcp_receivers: [tcpRxSettings({ id: 1, port: tcpPort })],
      udp_receivers: [udpRxSettings({ id: 2, port: udpPort })],
    },
  });
  await store.stop();
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://${LOOPBACK}:${httpPort}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

test.before(async () => {
  [tcpPort, udpPort, httpPort] = [await freePort(), await freePort(), await freePort()];
  await seed();
  gateway = new Gateway({ dataDir: dir.path, httpPort, httpsPort: 0, host: LOOPBACK, logger });
  await gateway.start();
  const tokens = new TokenService({ secret: () => SECRET, clock: systemClock });
  token = (
    await tokens.issueToken({ sub: INSTALLER_SUBJECT, scopes: ['device_control', 'restart_services'], minutes: 5 })
  ).token;
});

test.after(async () => {
  await gateway.stop();
  dir.remove();
});

test('the gateway runs the receivers its settings name and ACKs what it stored', async () => {
  assert.equal([gateway.health.get('rx:tcp:1')?.state, gateway.health.get('rx:udp:2')?.state], ['ok', 'ok']);
  const tcp = await TcpDevice.connect(tcpPort);
  tcp.send(message({ token: 'SIA-DCS', sequence: 1, account: '1001', data: '#1001|Nri1/BA01' }));
  assert.is(await tcp.nextText(), '"ACK"0001R1L1#1001[]');
  const udp = await UdpDevice.open();
  udp.send(message({ token: 'SIA-DCS', sequence: 2, account: '1002', data: '#1002|Nri1/BA01' }), udpPort);
  assert.is(await udp.nextText(), '"ACK"0002R1L1#1002[]');
  // The gateway journals its own internal events too (receiver null); these are the devices'.
  const rows = gateway.store.events.readAfter(0, 100).filter((r) => r.receiverId !== null);
  assert.equal(
    rows.map((r) => [r.account, r.transport, r.receiverId]),
    [
      ['1001', 'tcp', 1],
      ['1002', 'udp', 2],
    ],
  );
  await tcp.close();
  await udp.close();
});

test('POST /api/control-device over HTTP reaches a device linked to the gateway', async () => {
  const device = await linkDevice(tcpPort, { uid: '00AB00CD01', account: '2001', hwId: 'HW-2' });
  const pending = call('POST', '/api/control-device', { partial_uid: 'CD01', data: 'A0', response_required: true });
  const command = await nextCommand(device);
  answer(device, command.seq, [Buffer.from('BEEF', 'hex')]);
  assert.equal(await pending, {
    status: 200,
    body: { partial_uid: 'CD01', uid: '00AB00CD01', data: ['BEEF'], hw_id: 'HW-2', oid: '2001' },
  });
  await device.close();
});

test('GET /api/restart-services closes device connections; devices reconnect and link again', async () => {
  const device = await linkDevice(tcpPort, { uid: '00AB00CD02', account: '2002' });
  assert.equal(await call('GET', '/api/restart-services'), { status: 200, body: { success: true } });
  assert.ok(await device.closedWithin(2000), 'the connection was closed by the restart');
  const again = await linkDevice(tcpPort, { uid: '00AB00CD02', account: '2002' });
  const pending = call('POST', '/api/config-device', { partial_uid: 'CD02', data: '01' });
  const command = await nextCommand(again);
  answer(again, command.seq, []);
  assert.equal((await pending).body, { partial_uid: 'CD02', status: 'configuration_sent' });
  await again.close();
});

test.run();
