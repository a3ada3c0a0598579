/**
 * The device link's identity rules end to end, on real loopback TCP connections to a real TCP receiver with a real
 * SQLite store: a stranger who names a known device's UID cannot take its link over, change its
 * object or read its master code; the conflict is journaled (rate-limited) and shown on the Status
 * view; a replacement device enrols after the installer's reset; a closed receiver enrols only
 * UIDs the installer opened. The "stranger" connects from 127.0.0.2, the devices from 127.0.0.1.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statusBody } from '../../src/services/status-body.js';
import { systemClock } from '../../src/core/clock.js';
import { ingestJournal } from '../../src/internal-events/ingest-journal.js';
import { InternalEventRecorder } from '../../src/internal-events/recorder.js';
import { decodeLinkBody, encodeHello } from '../../src/protocols/device-link/codec.js';
import { DEFAULT_INTERNAL_EVENTS } from '../../src/settings/internal-events.js';
import type { DeviceKeyring } from '../../src/sim/link-handshake.js';
import { waitFor } from '../helpers/net.js';
import { answer, apiFor, linkDevice, nextCommand, sayHello, type Api } from './helpers/api.js';
import { TcpDevice } from './helpers/devices.js';
import { message, portOf, startRig, type Rig } from './helpers/rig.js';

const STRANGER = '127.0.0.2';
let rig: Rig;
let api: Api;
let openPort: number;
let closedPort: number;
let recorder: InternalEventRecorder;
const devices: TcpDevice[] = [];

async function connect(port: number, localAddress?: string): Promise<TcpDevice> {
  const d = await TcpDevice.connect(port, undefined, localAddress);
  devices.push(d);
  return d;
}

async function link(port: number, uid: string, keyring: DeviceKeyring, account = '1234'): Promise<TcpDevice> {
  const d = await linkDevice(port, { uid, account, keyring });
  devices.push(d);
  return d;
}

/** One handshake attempt from the stranger's address; the gateway's last answer. */
async function strangerHello(uid: string, keyring: DeviceKeyring, account = '6666'): Promise<string> {
  const d = await connect(openPort, STRANGER);
  const answer = await sayHello(d, { uid, account, keyring });
  return 'error' in answer
    ? `error:${answer.error}`
    : answer.type === 'refuse'
      ? `refuse:${answer.reason}`
      : answer.type;
}

function conflictEvents(uid: string): string[] {
  return rig
    .events()
    .map((e) => e.text ?? '')
    .filter((t) => t.includes(`UID ${uid}`));
}

test.before(async () => {
  rig = await startRig();
  openPort = portOf((await rig.tcp({ id: 1 })).address);
  closedPort = portOf((await rig.tcp({ id: 2, link_enrolment: 'closed' })).address);
  api = await apiFor(rig);
  recorder = new InternalEventRecorder({
    journal: ingestJournal(() => rig.store.write.events),
    entries: () => DEFAULT_INTERNAL_EVENTS as never,
    clock: systemClock,
    logger: rig.logger,
  });
  rig.runtime.conflicts.journalTo(recorder.raise);
});

test.after.each(async () => {
  for (const d of devices.splice(0)) await d.close();
  await waitFor(() => rig.runtime.links.size === 0, 2000);
});

test.after(async () => {
  await rig.close();
});

test('a stranger naming a known UID is refused: the real link stays, the object is unchanged, commands still reach the device', async () => {
  const uid = '00A1A1A1A1';
  const real = await link(openPort, uid, new Map());
  const object = rig.store.objects.findByUid(uid)!;
  const liveLink = rig.runtime.links.get(object.id);
  assert.ok(liveLink);
  assert.is(
    await strangerHello(uid, new Map([[uid, Buffer.alloc(32, 0xee)]])),
    'refuse:AUTH',
    'a wrong key fails the proof',
  );
  assert.is(await strangerHello(uid, new Map()), 'refuse:AUTH', 'a known UID cannot enrol again');
  const v1 = await connect(openPort, STRANGER);
  v1.send(encodeHello({ seq: 3, timestamp: null, version: 1, uid, account: '6666' }));
  const refused = decodeLinkBody(await v1.next(), null);
  assert.ok(
    !('error' in refused) && refused.type === 'refuse' && refused.reason === 'VER',
    'a version-1 HELLO gets no link',
  );
  assert.is(rig.runtime.links.get(object.id), liveLink, 'the real device keeps its link');
  const after = rig.store.objects.findByUid(uid)!;
  assert.equal(
    [after.account, after.receiverId, after.remoteAddress],
    [object.account, object.receiverId, object.remoteAddress],
  );
  assert.is(after.account, '1234');
  const pending = api.post('/api/control-device', {
    partial_uid: 'A1A1A1',
    data: '01',
    cloud_access_code: '1234',
    response_required: true,
  });
  const command = await nextCommand(real);
  assert.equal(command.auth, { mode: 'code', code: '1234' });
  answer(real, command.seq, [Buffer.from('5A', 'hex')]);
  assert.equal((await pending).body, { partial_uid: 'A1A1A1', uid, data: ['5A'], oid: '1234' });
});

test('the conflict is journaled once per UID and address per minute and shown on the Status view of that receiver only', async () => {
  const uid = '00B2B2B2B2';
  await link(openPort, uid, new Map());
  const wrong: DeviceKeyring = new Map([[uid, Buffer.alloc(32, 0x11)]]);
  for (let i = 0; i < 5; i++) assert.is(await strangerHello(uid, wrong), 'refuse:AUTH');
  await recorder.idle();
  assert.equal(conflictEvents(uid), [`Device identity conflict (UID ${uid} from ${STRANGER}: bad_proof)`]);
  const deps = {
    version: 't',
    startedAt: 0,
    clock: systemClock,
    health: rig.health,
    settings: { current: () => ({ general: { instance_name: 'x' } }) },
  };
  const component = statusBody(deps, null).components.find((c) => c.name === 'link-identity:1')!;
  assert.ok(component, 'the Status view lists the conflicts');
  assert.is(component.metrics.last_uid, uid);
  assert.is(component.metrics.last_remote, STRANGER);
  assert.is(component.metrics.last_reason, 'bad_proof');
  assert.ok(Number(component.metrics.suppressed) >= 4, `suppressed ${component.metrics.suppressed}`);
  assert.not.ok(JSON.stringify(component).match(/[0-9A-F]{64}/i), 'no key material in the status');
  assert.not.ok(
    statusBody(deps, [2]).components.some((c) => c.name === 'link-identity:1'),
    'a user limited to receiver 2 does not see it',
  );
});

test('the master code never crosses the wire in clear', async () => {
  const uid = '00C3C3C3C3';
  const real = await link(openPort, uid, new Map());
  const wire: Buffer[] = [];
  real.socket.on('data', (chunk: Buffer) => wire.push(chunk));
  const code = 'S3cr3t-Master';
  const pending = api.post('/api/control-device', {
    partial_uid: 'C3C3C3',
    data: '02',
    cloud_access_code: code,
    response_required: true,
  });
  const command = await nextCommand(real);
  assert.equal(command.auth, { mode: 'code', code }, 'the device reads the code with its session key');
  answer(real, command.seq, [Buffer.from('01', 'hex')]);
  await pending;
  const bytes = Buffer.concat(wire).toString('latin1');
  assert.ok(bytes.includes('"*VL-CMD"'), 'the command was on the wire');
  const hex = Buffer.from(code).toString('hex');
  for (const needle of [code, hex, hex.toUpperCase()])
    assert.not.ok(bytes.includes(needle), `"${needle}" is readable on the wire`);
});

test('replacement: after the installer resets the key a new device enrols with the UID; the old key no longer proves it', async () => {
  const uid = '00D4D4D4D4';
  const oldKeys: DeviceKeyring = new Map();
  const old = await link(openPort, uid, oldKeys);
  await old.close();
  const reset = await api.post('/api/device-enrolment', { partial_uid: 'D4D4D4' });
  assert.is(reset.status, 200);
  assert.is((reset.body as { uid: string }).uid, uid);
  assert.ok(
    Date.parse((reset.body as { enrolment_open_until: string }).enrolment_open_until) > Date.now() + 50 * 60_000,
  );
  assert.not.ok(JSON.stringify(reset.body).match(/[0-9A-F]{64}/i), 'the answer carries no key');
  const newKeys: DeviceKeyring = new Map();
  const replacement = await link(openPort, uid, newKeys, '4321');
  assert.ok(newKeys.get(uid) && !newKeys.get(uid)!.equals(oldKeys.get(uid)!), 'the new device has its own key');
  assert.is(rig.store.objects.findByUid(uid)!.account, '4321');
  const pending = api.post('/api/control-device', { partial_uid: 'D4D4D4', data: '03', response_required: true });
  const command = await nextCommand(replacement);
  answer(replacement, command.seq, [Buffer.from('03', 'hex')]);
  assert.equal(((await pending).body as { data: string[] }).data, ['03']);
  const logs = rig.logs.join('\n').toUpperCase();
  for (const key of [oldKeys.get(uid)!, newKeys.get(uid)!])
    assert.not.ok(logs.includes(key.toString('hex').toUpperCase()), 'no device key in the log');
  assert.is(await strangerHello(uid, oldKeys), 'refuse:AUTH', 'the old device is refused now');
  assert.is(await strangerHello(uid, new Map()), 'refuse:AUTH', 'the window closed with the enrolment');
});

test('closed enrolment: an unknown UID is refused until the installer opens enrolment for it', async () => {
  const uid = '00E5E5E5E5';
  const d = await connect(closedPort);
  const refused = await sayHello(d, { uid, account: '7777', keyring: new Map() });
  assert.ok(!('error' in refused) && refused.type === 'refuse' && refused.reason === 'AUTH');
  assert.is(rig.store.objects.findByUid(uid), null, 'a refused HELLO creates no object');
  assert.equal(await api.post('/api/device-enrolment', { partial_uid: 'E5E5E5' }), {
    status: 200,
    body: { error: 'NO_OBJECT' },
  });
  assert.is((await api.post('/api/device-enrolment', { uid })).status, 200);
  await link(closedPort, uid, new Map(), '7777');
  assert.is(rig.store.objects.findByUid(uid)!.account, '7777');
});

test("a stranger's first HELLO naming a plain panel's account does not take its object; an installer's window lets the panel's own upgrade adopt it", async () => {
  const panel = await connect(openPort);
  panel.send(message({ token: 'NULL', sequence: 1, account: '002000' }));
  assert.is(await panel.nextText(), '"ACK"0001R1L1#002000[]');
  await panel.close();
  const [before] = rig.store.objects.findByAccount('002000', 1);
  assert.ok(before && before.uid === null, 'the plain panel has an object without a UID');
  assert.is(await strangerHello('BADBAD000000', new Map(), '002000'), 'refuse:AUTH');
  const after = rig.store.objects.get(before.id)!;
  assert.equal(
    [after.uid, after.hwId, after.remoteAddress],
    [null, null, before.remoteAddress],
    "the panel's object is as it was",
  );
  assert.is(rig.store.objects.findByUid('BADBAD000000'), null, 'nor did the stranger get one');
  // The panel gets link firmware: the installer opens enrolment for its UID, and its HELLO adopts its object.
  assert.is((await api.post('/api/device-enrolment', { uid: '00C0C0C0C0' })).status, 200);
  await link(openPort, '00C0C0C0C0', new Map(), '002000');
  assert.is(rig.store.objects.get(before.id)!.uid, '00C0C0C0C0');
});

test('the enrolment endpoint refuses a body that names no device', async () => {
  for (const body of [
    {},
    { partial_uid: '' },
    { partial_uid: 'xyz' },
    { uid: '12' },
    { uid: 'ABCDEF', partial_uid: 'ABC' },
  ]) {
    assert.equal(
      await api.post('/api/device-enrolment', body),
      { status: 400, body: 'Invalid request' },
      JSON.stringify(body),
    );
  }
});

test.run();
