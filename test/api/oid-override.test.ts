import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '../../src/api/app.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
let admin: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
});
test.after.each(async () => {
  await h.close();
});

const put = (body: unknown) => call(h, 'PUT', '/api/oid-override', { token: admin, body });
const putRaw = (raw: string) => call(h, 'PUT', '/api/oid-override', { token: admin, raw });

async function rejects(body: unknown, error: string): Promise<void> {
  const res = typeof body === 'string' ? await putRaw(body) : await put(body);
  await expectResponse(res, 400, { error });
}

test('Invalid data: malformed JSON, a body that is not an object, or an unknown field', async () => {
  for (const raw of ['', '{', 'null', '[]', '"uid"', '12']) await rejects(raw, 'Invalid data');
  await rejects({ uid: 'AB', new_override_oid: '12', relatedOid: '34' }, 'Invalid data');
  await rejects({ uid: 'AB', new_override_oid: '12', extra: null }, 'Invalid data');
});

test('UID or OID must be provided: both absent, null or empty', async () => {
  await rejects({ new_override_oid: '12' }, 'UID or OID must be provided');
  await rejects({ uid: '', oid: '', new_override_oid: '12' }, 'UID or OID must be provided');
  await rejects({ uid: null, oid: null, related_oid: '34', new_override_oid: '12' }, 'UID or OID must be provided');
});

test('New override OID is required: absent, null or empty', async () => {
  await rejects({ uid: 'AB' }, 'New override OID is required');
  await rejects({ oid: '1234', new_override_oid: '' }, 'New override OID is required');
  await rejects({ uid: 'AB', new_override_oid: null }, 'New override OID is required');
});

test('UID must be numeric: a uid that is neither a string nor a number', async () => {
  await rejects({ uid: true, new_override_oid: '12' }, 'UID must be numeric');
  await rejects({ uid: ['AB'], new_override_oid: '12' }, 'UID must be numeric');
  await rejects({ uid: { v: 'AB' }, new_override_oid: '12' }, 'UID must be numeric');
});

test('UID parse error: a numeric uid that is not an exact non-negative integer', async () => {
  await rejects({ uid: -1, new_override_oid: '12' }, 'UID parse error');
  await rejects({ uid: 1.5, new_override_oid: '12' }, 'UID parse error');
  await rejects({ uid: 2 ** 53, new_override_oid: '12' }, 'UID parse error');
  await rejects('{"uid": 1e400, "new_override_oid": "12"}', 'UID parse error');
});

test('UID is too long: more than 32 characters', async () => {
  await rejects({ uid: 'A'.repeat(33), new_override_oid: '12' }, 'UID is too long');
  await rejects({ uid: 'Z'.repeat(40), new_override_oid: '12' }, 'UID is too long');
  await expectResponse(await put({ uid: 'A'.repeat(32), new_override_oid: '12' }), 200, { success: true });
});

test('UID must be hexadecimal: a character outside 0-9 A-F', async () => {
  for (const uid of ['XYZ', '0x1A', '12 34', '12-34', 'ABCDEFG', ' AB'])
    await rejects({ uid, new_override_oid: '12' }, 'UID must be hexadecimal');
});

test('Invalid OID: oid used (no uid) and not 1..16 hex digits', async () => {
  for (const oid of ['12G4', '1'.repeat(17), 1234, true, ' 12'])
    await rejects({ oid, new_override_oid: '12' }, 'Invalid OID');
  await rejects({ uid: '', oid: 'nothex', new_override_oid: '12' }, 'Invalid OID');
});

test('Invalid related_oid and Invalid new_override_oid', async () => {
  for (const related_oid of ['XY', '1'.repeat(17), 42, false])
    await rejects({ uid: 'AB', related_oid, new_override_oid: '12' }, 'Invalid related_oid');
  for (const new_override_oid of ['XY', '1'.repeat(17), 42, true, ' 12'])
    await rejects({ uid: 'AB', new_override_oid }, 'Invalid new_override_oid');
});

test('rule 1: with a uid, oid is ignored entirely, even when it is invalid', async () => {
  await expectResponse(await put({ uid: 'a1b2', oid: 'not hex at all', new_override_oid: '9abc' }), 200, {
    success: true,
  });
  assert.equal(
    h.store.overrides.list().map((o) => [o.matchKind, o.matchValue, o.relatedOid, o.overrideOid]),
    [['uid', 'A1B2', null, '9ABC']],
  );
});

test('rule 2: oid is used when uid is empty or null; related_oid targets the related object; all stored upper-case', async () => {
  await expectResponse(await put({ uid: '', oid: '00ab', new_override_oid: '1' }), 200, { success: true });
  await expectResponse(await put({ uid: null, oid: '00ab', related_oid: 'c1', new_override_oid: 'ff01' }), 200, {
    success: true,
  });
  await expectResponse(await put({ oid: '00AB', related_oid: '', new_override_oid: '2' }), 200, { success: true });
  assert.equal(
    h.store.overrides.list().map((o) => [o.matchKind, o.matchValue, o.relatedOid, o.overrideOid]),
    [
      ['oid', '00AB', null, '2'],
      ['oid', '00AB', 'C1', 'FF01'],
    ],
  );
});

test('a numeric uid is its value in hex', async () => {
  await expectResponse(await put({ uid: 255, new_override_oid: '12' }), 200, { success: true });
  assert.is(h.store.overrides.get('uid', 'FF', null)?.overrideOid, '12');
});

test('the override persists across a store reopen', async () => {
  await expectResponse(await put({ uid: '00A1B2C3D4', related_oid: '0042', new_override_oid: '9001' }), 200, {
    success: true,
  });
  await h.store.stop();
  const reopened = new Store(h.dbPath, silentLogger);
  await reopened.start();
  try {
    assert.equal(
      reopened.overrides.list().map((o) => [o.matchKind, o.matchValue, o.relatedOid, o.overrideOid]),
      [['uid', '00A1B2C3D4', '0042', '9001']],
    );
    assert.is(reopened.overrides.resolve({ uid: '00a1b2c3d4', account: '1234' }, '0042'), '9001');
  } finally {
    await reopened.stop();
  }
});

test('503 Database is not ready when the store is closed or read-only; bad input is still 400 first', async () => {
  await h.store.stop();
  await expectResponse(await put({ uid: 'AB', new_override_oid: '12' }), 503, { error: 'Database is not ready' });
  await rejects({ uid: 'AB' }, 'New override OID is required');
  const readonly = new Store(h.dbPath, silentLogger, undefined, { readonly: true });
  await readonly.start();
  try {
    const app = createApp({ ...h.deps, store: readonly });
    const res = await app.request('/api/oid-override', {
      method: 'PUT',
      headers: { Authorization: `Bearer ${admin}` },
      body: '{"oid":"12","new_override_oid":"34"}',
    });
    await expectResponse(res, 503, { error: 'Database is not ready' });
  } finally {
    await readonly.stop();
  }
});

test('401, 403 and 405 of oid-override are JSON', async () => {
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { body: {} }), 401, { error: 'NOT_LOGGED_IN' });
  const viewer = await h.token(3);
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token: viewer, body: {} }), 403, {
    error: 'FORBIDDEN',
  });
  const res = await call(h, 'GET', '/api/oid-override', { token: admin });
  assert.is(res.headers.get('allow'), 'PUT');
  await expectResponse(res, 405, { error: 'Method Not Allowed' });
});

test.run();
