import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceCommandOutcome, DeviceCommandRequest } from '../../src/core/device-commands.js';
import { OPERATOR, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
let ids: { a: number; b: number; c: number };
let installer: string;
let operator: string;
const seen: DeviceCommandRequest[] = [];

const A = { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' };
const B = { uid: 'FF0000C3D4', oid: '0042' };

test.before.each(async () => {
  h = await createHarness();
  const at = h.clock.now();
  ids = {
    a: (
      await h.store.write.objects.upsertMain({
        uid: A.uid,
        account: '1234',
        receiverId: 1,
        receiverKind: 'tcp',
        hwId: 'HW-7',
        at,
      })
    ).id,
    b: (await h.store.write.objects.upsertMain({ uid: B.uid, account: '0042', receiverId: 2, receiverKind: 'udp', at }))
      .id,
    c: (
      await h.store.write.objects.upsertMain({
        uid: '5555AAAA',
        account: '5555',
        receiverId: 1,
        receiverKind: 'tcp',
        at,
      })
    ).id,
  };
  installer = (
    await h.deps.tokens.issueToken({ sub: 'installer', scopes: ['device_control', 'omit_mpass'], minutes: 5 })
  ).token;
  operator = await h.token(OPERATOR.id);
  seen.length = 0;
});
test.after.each(async () => {
  await h.close();
});

/** The fake link: the one stand-in, for the device-link work. */
function link(objectId: number, outcome: DeviceCommandOutcome | (() => Promise<DeviceCommandOutcome>)): void {
  h.links.set(objectId, {
    execute: async (r) => {
      seen.push(r);
      return typeof outcome === 'function' ? outcome() : outcome;
    },
  });
}

const control = (body: unknown, token = installer) => call(h, 'POST', '/api/control-device', { token, body });
const config = (body: unknown, token = installer) => call(h, 'POST', '/api/config-device', { token, body });
const rawTo = (path: string, raw: string) => call(h, 'POST', path, { token: installer, raw });

const INVALID_BODIES = [
  '',
  '{',
  '[]',
  '"C3D4"',
  'null',
  JSON.stringify({ partial_uid: 1234, data: '01' }),
  JSON.stringify({ partial_uid: 'C3D4', data: 1 }),
  JSON.stringify({ partial_uid: 'C3D4', data: '01', request_id: 7 }),
  JSON.stringify({ partial_uid: 'C3D4', data: '01', response_required: 'true' }),
  JSON.stringify({ partial_uid: 'C3D4', data: '01', cloud_access_code: 123456 }),
  JSON.stringify({ partial_uid: 'XYZ1', data: '01' }),
  JSON.stringify({ partial_uid: 'C3 D4', data: '01' }),
  JSON.stringify({ partial_uid: 'A'.repeat(33), data: '01' }),
];

test('control-device: invalid bodies and field types are 400 Invalid request', async () => {
  for (const raw of INVALID_BODIES)
    await expectResponse(await rawTo('/api/control-device', raw), 400, 'Invalid request');
  assert.is(seen.length, 0);
});

test('control-device: partial_uid absent, null or empty is 200 FIELD_UID_IS_MISSING with partial_uid and request_id', async () => {
  await expectResponse(await control({ data: '01' }), 200, { partial_uid: '', error: 'FIELD_UID_IS_MISSING' });
  await expectResponse(await control({ partial_uid: null, request_id: 'r1', data: '01' }), 200, {
    partial_uid: '',
    request_id: 'r1',
    error: 'FIELD_UID_IS_MISSING',
  });
  await expectResponse(await control({ partial_uid: '', request_id: 'r2' }), 200, {
    partial_uid: '',
    request_id: 'r2',
    error: 'FIELD_UID_IS_MISSING',
  });
});

test('control-device: data absent, empty, not hex, odd length or with separators is 200 INVALID_DATA', async () => {
  for (const data of [undefined, '', '0G', 'ABC', '01 02', '01:02', '0x01']) {
    await expectResponse(await control({ partial_uid: 'c3d4', request_id: 'q', data }), 200, {
      partial_uid: 'c3d4',
      request_id: 'q',
      error: 'INVALID_DATA',
    });
  }
});

test('control-device: no device with that partial UID is NO_OBJECT', async () => {
  await expectResponse(await control({ partial_uid: 'eeee', data: '01' }), 200, {
    partial_uid: 'eeee',
    error: 'NO_OBJECT',
  });
});

test('control-device: an ambiguous partial UID is NO_OBJECT without device fields; visible receivers narrow it', async () => {
  await expectResponse(await control({ partial_uid: 'c3d4', request_id: 'r', data: '01' }), 200, {
    partial_uid: 'c3d4',
    request_id: 'r',
    error: 'NO_OBJECT',
  });
  // The operator sees receiver 1 only: device B is invisible, so C3D4 names device A.
  await expectResponse(await control({ partial_uid: 'c3d4', data: '01' }, operator), 200, {
    partial_uid: 'c3d4',
    uid: A.uid,
    error: 'NO_CONNECTION',
    hw_id: 'HW-7',
    oid: '1234',
  });
  await expectResponse(await control({ partial_uid: B.uid, data: '01' }, operator), 200, {
    partial_uid: B.uid,
    error: 'NO_OBJECT',
  });
});

test('control-device: a known device without a live link is NO_CONNECTION with what is known', async () => {
  await expectResponse(await control({ partial_uid: '5555aaaa', data: '0102' }), 200, {
    partial_uid: '5555aaaa',
    uid: '5555AAAA',
    error: 'NO_CONNECTION',
    oid: '5555',
  });
});

test('control-device: the request reaches the link decoded, with omit_mpass and visible receivers of the caller', async () => {
  link(ids.a, { ok: true, device: A, packets: [] });
  await control({
    partial_uid: 'a1b2c3d4',
    request_id: 'id-1',
    data: '0aFF',
    cloud_access_code: '123456',
    response_required: false,
  });
  await control({ partial_uid: 'B2C3D4', data: '00' }, operator);
  assert.equal(seen[0], {
    kind: 'control',
    partialUid: 'A1B2C3D4',
    requestId: 'id-1',
    data: Buffer.from([0x0a, 0xff]),
    cloudAccessCode: '123456',
    responseRequired: false,
    omitMasterPassword: true,
    visibleReceivers: null,
  });
  assert.equal(seen[1], {
    kind: 'control',
    partialUid: 'B2C3D4',
    data: Buffer.from([0]),
    responseRequired: false,
    omitMasterPassword: false,
    visibleReceivers: [1],
  });
});

test('control-device: with response_required the reply packets come back as upper-case hex, in order', async () => {
  link(ids.a, { ok: true, device: A, packets: [Buffer.from([1, 2]), Buffer.from([0xa0, 0xff])] });
  const res = await control({ partial_uid: 'c3d4', request_id: 'r1', data: '01', response_required: true }, operator);
  await expectResponse(res, 200, {
    partial_uid: 'c3d4',
    request_id: 'r1',
    uid: A.uid,
    data: ['0102', 'A0FF'],
    hw_id: 'HW-7',
    oid: '1234',
  });
});

test('control-device: without response_required there is no data field', async () => {
  link(ids.a, { ok: true, device: A, packets: [Buffer.from([1])] });
  await expectResponse(await control({ partial_uid: 'A1B2C3D4', data: '01' }), 200, {
    partial_uid: 'A1B2C3D4',
    uid: A.uid,
    hw_id: 'HW-7',
    oid: '1234',
  });
});

test('control-device: every device error code comes back in a 200 reply with the device fields', async () => {
  const cases: Array<[DeviceCommandOutcome, string]> = [
    [{ ok: false, error: 'MPASS_IS_INCORRECT', device: A }, 'MPASS_IS_INCORRECT'],
    [{ ok: false, error: 'BAD_DATA', device: A }, 'BAD_DATA'],
    [{ ok: false, error: 'NO_RESPONSE', device: A }, 'NO_RESPONSE'],
    [{ ok: false, error: 'INVALID_PACKET_NUMBER', device: A }, 'INVALID_PACKET_NUMBER'],
    [{ ok: false, error: 'INVALID_PACKET_COUNT', device: A }, 'INVALID_PACKET_COUNT'],
    [{ ok: false, error: 'CONFIG_REJECTED', device: A }, 'BAD_DATA'],
    [{ ok: false, error: 'NO_CONNECTION', device: A }, 'NO_CONNECTION'],
  ];
  for (const [outcome, code] of cases) {
    link(ids.a, outcome);
    const res = await control({ partial_uid: 'A1B2C3D4', request_id: 'x', data: '01', response_required: true });
    await expectResponse(res, 200, {
      partial_uid: 'A1B2C3D4',
      request_id: 'x',
      uid: A.uid,
      error: code,
      hw_id: 'HW-7',
      oid: '1234',
    });
  }
});

test('control-device: a link that throws is NO_CONNECTION; a store that cannot be read is 500 E_3', async () => {
  link(ids.a, () => Promise.reject(new Error('socket gone')));
  await expectResponse(await control({ partial_uid: 'A1B2C3D4', data: '01' }), 200, {
    partial_uid: 'A1B2C3D4',
    uid: A.uid,
    error: 'NO_CONNECTION',
    hw_id: 'HW-7',
    oid: '1234',
  });
  await h.store.stop();
  await expectResponse(await control({ partial_uid: 'A1B2C3D4', data: '01' }), 500, 'E_3');
});

test('config-device: invalid body is 400 Invalid request; missing uid and bad data are 400 plain codes', async () => {
  for (const raw of INVALID_BODIES)
    await expectResponse(await rawTo('/api/config-device', raw), 400, 'Invalid request');
  await expectResponse(await config({ data: '01' }), 400, 'FIELD_UID_IS_MISSING');
  await expectResponse(await config({ partial_uid: '', request_id: 'r', data: '01' }), 400, 'FIELD_UID_IS_MISSING');
  for (const data of [undefined, '', 'ABC', 'ZZ', '01-02'])
    await expectResponse(await config({ partial_uid: 'C3D4', data }), 400, 'INVALID_DATA');
  assert.is(seen.length, 0);
});

test('config-device: no device, an ambiguous partial UID and no connection are all "Device not connected"', async () => {
  await expectResponse(await config({ partial_uid: 'EEEE', request_id: 'r', data: '01' }), 200, {
    partial_uid: 'EEEE',
    request_id: 'r',
    error: 'Device not connected',
  });
  await expectResponse(await config({ partial_uid: 'C3D4', data: '01' }), 200, {
    partial_uid: 'C3D4',
    error: 'Device not connected',
  });
  await expectResponse(await config({ partial_uid: '5555AAAA', data: '01' }), 200, {
    partial_uid: '5555AAAA',
    error: 'Device not connected',
  });
});

test('config-device: NO_RESPONSE carries a message', async () => {
  link(ids.a, { ok: false, error: 'NO_RESPONSE', device: A });
  await expectResponse(await config({ partial_uid: 'A1B2C3D4', data: '01', response_required: true }), 200, {
    partial_uid: 'A1B2C3D4',
    error: 'NO_RESPONSE',
    message: 'The device did not reply within 10 seconds',
  });
  link(ids.a, { ok: false, error: 'NO_RESPONSE', device: A, message: 'no reply to request 0007' });
  await expectResponse(
    await config({ partial_uid: 'A1B2C3D4', request_id: 'k', data: '01', response_required: true }),
    200,
    {
      partial_uid: 'A1B2C3D4',
      request_id: 'k',
      error: 'NO_RESPONSE',
      message: 'no reply to request 0007',
    },
  );
});

test('config-device: a rejected configuration and malformed data are "Invalid configuration format"; other codes pass', async () => {
  const cases: Array<[DeviceCommandOutcome, string]> = [
    [{ ok: false, error: 'CONFIG_REJECTED', device: A }, 'Invalid configuration format'],
    [{ ok: false, error: 'BAD_DATA', device: A }, 'Invalid configuration format'],
    [{ ok: false, error: 'MPASS_IS_INCORRECT', device: A }, 'MPASS_IS_INCORRECT'],
    [{ ok: false, error: 'INVALID_PACKET_NUMBER', device: A }, 'INVALID_PACKET_NUMBER'],
    [{ ok: false, error: 'INVALID_PACKET_COUNT', device: A }, 'INVALID_PACKET_COUNT'],
  ];
  for (const [outcome, error] of cases) {
    link(ids.a, outcome);
    await expectResponse(await config({ partial_uid: 'A1B2C3D4', data: '01' }), 200, {
      partial_uid: 'A1B2C3D4',
      error,
    });
  }
});

test('config-device: success with and without a device reply', async () => {
  link(ids.a, { ok: true, device: A, packets: [Buffer.from([0x0a, 0x0b]), Buffer.from([0xcc])] });
  await expectResponse(
    await config({ partial_uid: 'a1b2c3d4', request_id: 'c1', data: '0102', response_required: true }),
    200,
    {
      partial_uid: 'a1b2c3d4',
      request_id: 'c1',
      uid: A.uid,
      hw_id: 'HW-7',
      oid: '1234',
      data: ['0A0B', 'CC'],
    },
  );
  await expectResponse(await config({ partial_uid: 'a1b2c3d4', request_id: 'c2', data: '0102' }), 200, {
    partial_uid: 'a1b2c3d4',
    request_id: 'c2',
    status: 'configuration_sent',
  });
  assert.equal(
    seen.map((r) => [r.kind, r.responseRequired]),
    [
      ['config', true],
      ['config', false],
    ],
  );
});

test.run();
