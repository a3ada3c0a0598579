/**
 * OID overrides through the page and the API with the same limited user (issue #28 item 2): both
 * edges call setOverride (src/services/overrides-service.ts), so a device on a receiver the user
 * cannot see is refused by both, and nothing is stored by either.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expectResponse } from '../api/harness.js';
import { createParity, type Parity } from './parity-fixture.js';

let p: Parity;
test.before.each(async () => {
  p = await createParity();
});
test.after.each(async () => {
  await p.h.close();
});

const HIDDEN_TARGETS = [
  { uid: 'B2B2', oid: '', related_oid: '' },
  { uid: '', oid: '2222', related_oid: '' },
  { uid: 'B2B2', oid: '', related_oid: '8888' },
  { uid: '', oid: '2222', related_oid: '8888' },
  // Reported on both receivers: the override would reach the hidden device too.
  { uid: '', oid: '3333', related_oid: '' },
  // Unknown: refused the same way (the answer never tells whether a device exists).
  { uid: 'FFFF', oid: '', related_oid: '' },
];

function apiBody(t: { uid: string; oid: string; related_oid: string }): Record<string, string> {
  return Object.fromEntries(Object.entries({ ...t, new_override_oid: '9999' }).filter(([, v]) => v !== ''));
}

test('a device on a receiver the user cannot see: the page and the API both refuse, nothing is stored', async () => {
  for (const target of HIDDEN_TARGETS) {
    await expectResponse(await p.api('PUT', '/api/oid-override', { body: apiBody(target) }), 400, {
      error: 'Invalid data',
    });
    const page = await p.page.post('/overrides', { ...target, new_override_oid: '9999' });
    assert.is(page.status, 400, `page status for ${JSON.stringify(target)}`);
    assert.match(await page.text(), 'Invalid data');
  }
  assert.equal(p.h.store.overrides.list(), []);
  assert.is(p.h.store.overrides.resolve({ uid: 'B2B2', account: '2222' }, null), null);
  assert.equal(
    p.h.actions.filter((a) => a.includes('OID override')),
    [],
  );
});

test('a device on the receiver the user sees: the page and the API both store the override', async () => {
  await expectResponse(
    await p.api('PUT', '/api/oid-override', { body: { uid: 'A1A1', new_override_oid: '9001' } }),
    200,
    { success: true },
  );
  const page = await p.page.post('/overrides', { uid: '', oid: '1111', related_oid: '7777', new_override_oid: '9002' });
  assert.is(page.status, 200);
  assert.match(await page.text(), 'Saved: OID 1111 related 7777 is now sent as 9002.');
  assert.is(p.h.store.overrides.resolve({ uid: 'A1A1', account: '1111' }, null), '9001');
  assert.is(p.h.store.overrides.resolve({ uid: 'A1A1', account: '1111' }, '7777'), '9002');
});

test('invalid input: the same message on both edges, nothing stored', async () => {
  await expectResponse(await p.api('PUT', '/api/oid-override', { body: { uid: 'XYZ', new_override_oid: '9' } }), 400, {
    error: 'UID must be hexadecimal',
  });
  const page = await p.page.post('/overrides', { uid: 'XYZ', oid: '', related_oid: '', new_override_oid: '9' });
  assert.is(page.status, 400);
  assert.match(await page.text(), 'UID must be hexadecimal');
  assert.equal(p.h.store.overrides.list(), []);
});

test.run();
