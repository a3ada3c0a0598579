/**
 * PUT /api/oid-override respects the caller's visible receivers (issue #7 defect 1; docs/api.md
 * "OID override"). The operator sees receiver 1 only; receiver 2 is invisible to them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, OPERATOR, call, createHarness, expectResponse, seedTwoReceivers, type Harness } from './harness.js';

let h: Harness;
let admin: string;
let operator: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
  operator = await h.token(OPERATOR.id);
  await seedTwoReceivers(h.store, h.clock.now());
});
test.after.each(async () => {
  await h.close();
});

const put = (token: string, body: unknown) => call(h, 'PUT', '/api/oid-override', { token, body });
const refused = { error: 'Invalid data' };

test('a limited caller cannot override a device on an invisible receiver, by uid, by oid, or on a related object', async () => {
  await expectResponse(await put(operator, { uid: 'B2B2', new_override_oid: '9999' }), 400, refused);
  await expectResponse(await put(operator, { uid: 'b2b2', new_override_oid: '9999' }), 400, refused);
  await expectResponse(await put(operator, { oid: '2222', new_override_oid: '9999' }), 400, refused);
  await expectResponse(
    await put(operator, { uid: 'B2B2', related_oid: '8888', new_override_oid: '9999' }),
    400,
    refused,
  );
  await expectResponse(
    await put(operator, { oid: '2222', related_oid: '8888', new_override_oid: '9999' }),
    400,
    refused,
  );
  // An account also reported on an invisible receiver: the override would reach that device too.
  await expectResponse(await put(operator, { oid: '3333', new_override_oid: '9999' }), 400, refused);
  assert.equal(h.store.overrides.list(), []);
  assert.is(h.store.overrides.resolve({ uid: 'B2B2', account: '2222' }, null), null);
});

test('the answer does not reveal whether the device exists: unknown devices get the same 400', async () => {
  const hidden = await put(operator, { uid: 'B2B2', new_override_oid: '9999' });
  const unknown = await put(operator, { uid: 'FFFFFF', new_override_oid: '9999' });
  assert.is(hidden.status, unknown.status);
  assert.equal(await hidden.text(), await unknown.text());
  await expectResponse(await put(operator, { oid: 'ABCDEF', new_override_oid: '9999' }), 400, refused);
});

test('a limited caller can override devices on the receivers it sees', async () => {
  await expectResponse(await put(operator, { uid: 'A1A1', new_override_oid: '9001' }), 200, { success: true });
  await expectResponse(await put(operator, { oid: '1111', related_oid: '7777', new_override_oid: '9002' }), 200, {
    success: true,
  });
  assert.is(h.store.overrides.resolve({ uid: 'A1A1', account: '1111' }, null), '9001');
  assert.is(h.store.overrides.resolve({ uid: 'A1A1', account: '1111' }, '7777'), '9002');
});

test('a caller who sees every receiver may override any device, and devices that never connected', async () => {
  await expectResponse(await put(admin, { uid: 'B2B2', new_override_oid: '9003' }), 200, { success: true });
  await expectResponse(await put(admin, { oid: '3333', new_override_oid: '9004' }), 200, { success: true });
  await expectResponse(await put(admin, { uid: 'FFFFFF', new_override_oid: '9005' }), 200, { success: true });
  assert.is(h.store.overrides.list().length, 3);
});

test.run();
