/**
 * End to end: a test device on a REAL TCP connection says VL-HELLO; POST /api/control-device and
 * /api/config-device through createApp (`app.request`) reach it over its link and its reply
 * packets come back. The command deadline is injected (1 s) so NO_RESPONSE is quick.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEVICE_REPLY_TIMEOUT_MS } from '../../src/core/device-commands.js';
import { receiverPasswordKey } from '../../src/protocols/dc09/crypto.js';
import { DEFAULT_RECEIVER_OPTIONS } from '../../src/receivers/receiver-options.js';
import { ReceiverRuntime } from '../../src/receivers/receiver-runtime.js';
import { waitFor } from '../helpers/net.js';
import { answer, apiFor, linkDevice, nextCommand, type Api } from './helpers/api.js';
import type { TcpDevice } from './helpers/devices.js';
import { PASSWORD16, message, portOf, startRig, type Rig } from './helpers/rig.js';

const TIMEOUT_MS = 1000;
let rig: Rig;
let api: Api;
let plainPort: number;
let securePort: number;
const devices: TcpDevice[] = [];
const key = receiverPasswordKey(PASSWORD16);

async function link(
  port: number,
  uid: string,
  extra: { account?: string; hwId?: string; key?: Buffer } = {},
): Promise<TcpDevice> {
  const d = await linkDevice(port, { uid, ...extra });
  devices.push(d);
  return d;
}

test.before(async () => {
  rig = await startRig({ receiver: { commandTimeoutMs: TIMEOUT_MS } });
  plainPort = portOf((await rig.tcp({ id: 1 })).address);
  securePort = portOf((await rig.tcp({ id: 2, encryption_password: PASSWORD16 })).address);
  api = await apiFor(rig);
});

test.after.each(async () => {
  for (const d of devices.splice(0)) await d.close();
  await waitFor(() => rig.runtime.links.size === 0, 2000);
});

test.after(async () => {
  await rig.close();
});

test('control-device reaches a linked device and its reply packets come back in order', async () => {
  const d = await link(plainPort, '00A1B2C3D4', { account: '1234', hwId: 'HW-7' });
  const pending = api.post('/api/control-device', {
    partial_uid: 'b2c3d4',
    request_id: 'r-1',
    data: '0102ab',
    cloud_access_code: '1234',
    response_required: true,
  });
  const command = await nextCommand(d);
  assert.equal(
    [command.kind, command.auth, command.replyWanted, command.data.toString('hex')],
    ['control', { mode: 'code', code: '1234' }, true, '0102ab'],
  );
  answer(d, command.seq, [Buffer.from('A1B2', 'hex'), Buffer.from('C3', 'hex')]);
  assert.equal(await pending, {
    status: 200,
    body: {
      partial_uid: 'b2c3d4',
      request_id: 'r-1',
      uid: '00A1B2C3D4',
      data: ['A1B2', 'C3'],
      hw_id: 'HW-7',
      oid: '1234',
    },
  });
});

test('config-device over an encrypted link: the command travels encrypted, status configuration_sent', async () => {
  const d = await link(securePort, '00E0E0E0E0', { account: '4321', key });
  const pending = api.post('/api/config-device', { partial_uid: 'E0E0E0E0', data: '10FF' });
  const command = await nextCommand(d, key);
  assert.equal(
    [command.kind, command.encrypted, command.replyWanted, command.data.toString('hex')],
    ['config', true, false, '10ff'],
  );
  answer(d, command.seq, [], key);
  assert.equal(await pending, { status: 200, body: { partial_uid: 'E0E0E0E0', status: 'configuration_sent' } });
});

test('the device registers by its HELLO: DC-09 events on the same connection belong to it', async () => {
  const d = await link(plainPort, '00C0FFEE01', { account: '2222' });
  d.send(message({ token: 'SIA-DCS', sequence: 5, account: '2222', data: '#2222|Nri1/BA01' }));
  assert.is(await d.nextText(), '"ACK"0005R1L1#2222[]');
  const object = rig.store.objects.findByUid('00C0FFEE01')!;
  assert.is(rig.events().at(-1)!.objectId, object.id);
});

test('a device that disconnects mid-command ends it with NO_CONNECTION at once', async () => {
  const d = await link(plainPort, '00D15C0001', { account: '3333' });
  const started = Date.now();
  const pending = api.post('/api/control-device', { partial_uid: 'D15C0001', data: '01', response_required: true });
  await nextCommand(d);
  await d.close();
  const result = await pending;
  assert.ok(Date.now() - started < TIMEOUT_MS, `answered after ${Date.now() - started} ms`);
  assert.equal(result.body, { partial_uid: 'D15C0001', uid: '00D15C0001', error: 'NO_CONNECTION', oid: '3333' });
});

test('no reply within the deadline is NO_RESPONSE', async () => {
  const d = await link(plainPort, '00511E0001');
  const started = Date.now();
  const pending = api.post('/api/control-device', { partial_uid: '511E0001', data: '01', response_required: true });
  await nextCommand(d);
  const result = await pending;
  assert.ok(Date.now() - started >= TIMEOUT_MS - 20, `answered after ${Date.now() - started} ms`);
  assert.equal(result.body, { partial_uid: '511E0001', uid: '00511E0001', error: 'NO_RESPONSE' });
});

test("the command deadline defaults to the contract's 10 s", () => {
  assert.is(DEVICE_REPLY_TIMEOUT_MS, 10_000);
  assert.is(DEFAULT_RECEIVER_OPTIONS.commandTimeoutMs, 10_000);
  const runtime = new ReceiverRuntime({
    store: rig.store,
    writer: rig.writer,
    health: rig.health,
    clock: { now: Date.now },
    logger: rig.logger,
  });
  assert.is(runtime.links.timeoutMs, 10_000);
});

test('commands to one device are serialised; commands to two devices run concurrently', async () => {
  const a = await link(plainPort, '00AAAA0001');
  const b = await link(plainPort, '00BBBB0001');
  const a1 = api.post('/api/control-device', {
    partial_uid: 'AAAA0001',
    request_id: 'a1',
    data: '01',
    response_required: true,
  });
  const first = await nextCommand(a);
  const a2 = api.post('/api/control-device', {
    partial_uid: 'AAAA0001',
    request_id: 'a2',
    data: '02',
    response_required: true,
  });
  const b1 = api.post('/api/control-device', {
    partial_uid: 'BBBB0001',
    request_id: 'b1',
    data: '03',
    response_required: true,
  });
  const other = await nextCommand(b);
  assert.equal(
    [first.data.toString('hex'), other.data.toString('hex')],
    ['01', '03'],
    'B got its command while A was busy',
  );
  await a.silence(100);
  answer(b, other.seq, [Buffer.from('BB', 'hex')]);
  answer(a, first.seq, [Buffer.from('A1', 'hex')]);
  const second = await nextCommand(a);
  assert.is(second.data.toString('hex'), '02');
  answer(a, second.seq, [Buffer.from('A2', 'hex')]);
  const bodies = (await Promise.all([a1, a2, b1])).map((r) => (r.body as { data: string[] }).data);
  assert.equal(bodies, [['A1'], ['A2'], ['BB']]);
});

test('a device that reconnects replaces its old link; the old in-flight command ends NO_CONNECTION', async () => {
  const old = await link(plainPort, '00EEEE0001');
  const pending = api.post('/api/control-device', { partial_uid: 'EEEE0001', data: '01', response_required: true });
  await nextCommand(old);
  const started = Date.now();
  const fresh = await link(plainPort, '00EEEE0001');
  assert.equal((await pending).body, { partial_uid: 'EEEE0001', uid: '00EEEE0001', error: 'NO_CONNECTION' });
  assert.ok(Date.now() - started < TIMEOUT_MS, 'ended by the new link, not by the deadline');
  const next = api.post('/api/control-device', { partial_uid: 'EEEE0001', data: '02', response_required: true });
  const command = await nextCommand(fresh);
  answer(fresh, command.seq, [Buffer.from('0F', 'hex')]);
  assert.equal(((await next).body as { data: string[] }).data, ['0F']);
  await old.silence(100);
});

test('a known device whose connection ended is NO_CONNECTION with what the store knows', async () => {
  const d = await link(plainPort, '00F0F0F0F0', { account: '5555', hwId: 'HW-X' });
  await d.close();
  await waitFor(() => rig.runtime.links.get(rig.store.objects.findByUid('00F0F0F0F0')!.id) === undefined, 2000);
  const result = await api.post('/api/control-device', { partial_uid: 'F0F0F0F0', data: '01' });
  assert.equal(result.body, {
    partial_uid: 'F0F0F0F0',
    uid: '00F0F0F0F0',
    error: 'NO_CONNECTION',
    hw_id: 'HW-X',
    oid: '5555',
  });
});

test.run();
