import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import type { DeviceCommandRequest } from '../../src/core/device-commands.js';
import { silentLogger } from '../../src/core/logger.js';
import { RegistryCommandPort, type DeviceLinkHandle } from '../../src/devices/registry-command-port.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';

const dir = tempDir('vigil-port-');
const store = new Store(join(dir.path, 'vigil.db'), silentLogger, undefined, { clock: new ManualClock() });
const links = new Map<number, DeviceLinkHandle>();
let ids: { a: number; b: number; c: number; bare: number };

test.before(async () => {
  await store.start();
  const at = Date.UTC(2026, 0, 1);
  const a = await store.write.objects.upsertMain({
    uid: '00A1B2C3D4',
    account: '1234',
    receiverId: 1,
    receiverKind: 'tcp',
    hwId: 'HW-7',
    at,
  });
  const b = await store.write.objects.upsertMain({
    uid: 'FF0000C3D4',
    account: '0042',
    receiverId: 2,
    receiverKind: 'tcp',
    at,
  });
  const c = await store.write.objects.upsertMain({
    uid: '1111119999',
    account: '9999',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  const bare = await store.write.objects.upsertMain({ account: '7777', receiverId: 1, receiverKind: 'tcp', at });
  ids = { a: a.id, b: b.id, c: c.id, bare: bare.id };
});

test.after(async () => {
  await store.stop();
  dir.remove();
});

function request(partialUid: string, visibleReceivers: number[] | null = null): DeviceCommandRequest {
  return {
    kind: 'control',
    partialUid,
    data: Buffer.from([1, 2]),
    responseRequired: true,
    omitMasterPassword: false,
    visibleReceivers,
  };
}

function port() {
  return new RegistryCommandPort({ objects: store.objects, links, logger: silentLogger, overrides: store.overrides });
}

test('no device ending with the partial UID is NO_OBJECT', async () => {
  assert.equal(await port().execute(request('ABCDEF')), { ok: false, error: 'NO_OBJECT' });
});

test('two visible devices ending with the partial UID is AMBIGUOUS_UID', async () => {
  assert.equal(await port().execute(request('C3D4')), { ok: false, error: 'AMBIGUOUS_UID' });
});

test('visible receivers narrow the match: the other device is invisible, not ambiguous', async () => {
  assert.equal(await port().execute(request('C3D4', [1])), {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' },
  });
  assert.equal(await port().execute(request('9999', [2])), { ok: false, error: 'NO_OBJECT' });
});

test('a matching device without a live link is NO_CONNECTION with what the store knows', async () => {
  assert.equal(await port().execute(request('1119999')), {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: '1111119999', oid: '9999' },
  });
});

test('the OID reported is the override OID when one is set for the device', async () => {
  await store.write.overrides.set({
    matchKind: 'uid',
    matchValue: '1111119999',
    relatedOid: null,
    overrideOid: 'ABCD',
  });
  assert.equal(await port().execute(request('1119999')), {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: '1111119999', oid: 'ABCD' },
  });
});

test('a connected device gets the request as given and its outcome is returned unchanged', async () => {
  const seen: DeviceCommandRequest[] = [];
  links.set(ids.a, {
    execute: async (r) => {
      seen.push(r);
      return {
        ok: true,
        device: { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' },
        packets: [Buffer.from('0102', 'hex')],
      };
    },
  });
  const req = request('A1B2C3D4');
  const outcome = await port().execute(req);
  assert.equal(outcome, {
    ok: true,
    device: { uid: '00A1B2C3D4', hwId: 'HW-7', oid: '1234' },
    packets: [Buffer.from('0102', 'hex')],
  });
  assert.is(seen[0], req);
  links.delete(ids.a);
});

test('a link that throws is NO_CONNECTION, not a crash', async () => {
  links.set(ids.b, { execute: async () => Promise.reject(new Error('socket closed')) });
  assert.equal(await port().execute(request('FF0000C3D4')), {
    ok: false,
    error: 'NO_CONNECTION',
    device: { uid: 'FF0000C3D4', oid: '0042' },
  });
  links.delete(ids.b);
});

test('a device that never reported a UID cannot be addressed', async () => {
  links.set(ids.bare, { execute: async () => ({ ok: false, error: 'BAD_DATA' }) });
  assert.equal(await port().execute(request('7777')), { ok: false, error: 'NO_OBJECT' });
});

test.run();
