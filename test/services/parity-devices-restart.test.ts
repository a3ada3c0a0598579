/**
 * Device commands and restart through the page and the API with the same limited user (issue
 * #28 item 2). The operator holds the grant `device_control` but not `omit_mpass` or
 * `restart_services`, and sees receiver 1 only. Both edges call runDeviceCommand and
 * restartServices (src/services), so a device on receiver 2 is NO_OBJECT on both (its live link
 * never sees the command), the master-password flag is the same, and neither edge restarts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeviceCommandRequest } from '../../src/core/device-commands.js';
import { expectResponse } from '../api/harness.js';
import { createParity, createParityLogins, type Parity } from './parity-fixture.js';

let p: Parity;
let seen: DeviceCommandRequest[];
test.before.each(async () => {
  p = await createParity();
  seen = [];
  for (const uid of ['A1A1', 'B2B2']) {
    const device = p.h.store.objects.findByUid(uid)!;
    p.h.links.set(device.id, {
      execute: async (r) => {
        seen.push(r);
        return { ok: true, device: { uid, oid: device.account }, packets: [Buffer.from([0x06])] };
      },
    });
  }
});
test.after.each(async () => {
  await p.h.close();
});

const form = (partialUid: string, kind = 'control') => ({
  kind,
  partial_uid: partialUid,
  data: '0102',
  response_required: 'true',
  request_id: '',
  cloud_access_code: '',
});

test('a device on a receiver the user cannot see is NO_OBJECT on both edges and never reached', async () => {
  await expectResponse(
    await p.api('POST', '/api/control-device', {
      body: { partial_uid: 'B2B2', data: '0102', response_required: true },
    }),
    200,
    {
      partial_uid: 'B2B2',
      error: 'NO_OBJECT',
    },
  );
  await expectResponse(
    await p.api('POST', '/api/config-device', { body: { partial_uid: 'B2B2', data: '0102' } }),
    200,
    {
      partial_uid: 'B2B2',
      error: 'Device not connected',
    },
  );
  const page = await p.page.post('/device', form('B2B2'), '/device');
  assert.is(page.status, 200);
  assert.match(await page.text(), 'NO_OBJECT');
  const config = await p.page.post('/device', form('B2B2', 'config'), '/device');
  assert.match(await config.text(), 'Device not connected');
  // The page's script sends commands to /device/stream (Server-Sent Events): the same answer.
  const csrf = await p.page.csrf('/device');
  const stream = await p.page.request('POST', '/device/stream', form('B2B2'), { 'X-CSRF-Token': csrf });
  assert.is(stream.status, 200);
  assert.match(await stream.text(), /event: result\ndata: .*"error":"NO_OBJECT"/);
  assert.equal(seen, []);
  assert.equal(
    p.h.actions.filter((a) => a.includes('partial UID')),
    [
      'operator: control to partial UID B2B2, 2 bytes: NO_OBJECT',
      'operator: config to partial UID B2B2, 2 bytes: Device not connected',
      'operator: control to partial UID B2B2, 2 bytes: NO_OBJECT',
    ],
  );
});

test('a device the user sees: both edges reach it with the same request, master password not omitted', async () => {
  const api = await p.api('POST', '/api/control-device', {
    body: { partial_uid: 'a1a1', data: '0102', response_required: true },
  });
  assert.is(api.status, 200);
  const page = await p.page.post('/device', form('a1a1'), '/device');
  assert.is(page.status, 200);
  assert.is(seen.length, 2);
  const [fromApi, fromPage] = seen.map(({ onPacket: _drop, ...rest }) => rest);
  assert.equal(fromPage, fromApi);
  assert.is(fromApi!.omitMasterPassword, false);
  assert.equal(fromApi!.visibleReceivers, [1]);
});

test('restart: refused on both edges without restart_services, nothing restarted', async () => {
  await expectResponse(await p.api('GET', '/api/restart-services'), 403, 'FORBIDDEN');
  assert.is((await p.page.get('/restart')).status, 403);
  assert.is((await p.page.post('/restart', { confirm: 'yes' }, '/')).status, 403);
  assert.is(p.h.restarts.count, 0);
  assert.equal(
    p.h.actions.filter((a) => a.includes('restart')),
    [],
  );
});

test('restart: a grant reaches both edges at the next login, and both restart through the same function', async () => {
  await p.h.store.write.grants.set(2, ['device_control', 'restart_services'], 'test');
  // Both sessions carry tokens issued before the grant: both still refuse.
  await expectResponse(await p.api('GET', '/api/restart-services'), 403, 'FORBIDDEN');
  assert.is((await p.page.post('/restart', { confirm: 'yes' }, '/')).status, 403);
  const again = await createParityLogins(p);
  await expectResponse(await again.api('GET', '/api/restart-services'), 200, { success: true });
  const page = await again.page.post('/restart', { confirm: 'yes' }, '/restart');
  assert.is(page.status, 200);
  assert.match(await page.text(), 'Receivers and outputs restarted.');
  assert.is(p.h.restarts.count, 2);
});

test.run();
