/**
 * Replacing a device (docs/device-link.md §4.4) through the page and the API with the same limited
 * user (operator: device_control, receiver 1 only): one service function decides both, so both
 * reset the visible device and neither reaches the device on receiver 2.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OPERATOR } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from './web-harness.js';

let h: WebHarness;
let page: Browser;
let token: string;

test.before(async () => {
  h = await createWebHarness();
  const at = h.clock.now();
  await h.store.write.objects.upsertMain({
    uid: '00AAAA0001',
    account: '1234',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  await h.store.write.objects.upsertMain({
    uid: '00BBBB0001',
    account: '4321',
    receiverId: 2,
    receiverKind: 'udp',
    at,
  });
  await h.store.write.deviceKeys.enrol('00AAAA0001', Buffer.alloc(32, 1));
  await h.store.write.deviceKeys.enrol('00BBBB0001', Buffer.alloc(32, 2));
  page = new Browser(h);
  const login = await page.login(OPERATOR.login, OPERATOR.password);
  if (login.status !== 303 && login.status !== 302) throw new Error(`login answered ${login.status}`);
  token = await h.token(OPERATOR.id);
});

test.after(async () => {
  await h.close();
});

async function api(body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await h.app.request('/api/device-enrolment', {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

test('the device on a receiver the user does not see is out of reach on the page and in the API', async () => {
  assert.equal(await api({ partial_uid: 'BBBB0001' }), { status: 200, body: { error: 'NO_OBJECT' } });
  assert.equal(await api({ uid: '00BBBB0001' }), { status: 200, body: { error: 'NO_OBJECT' } });
  const html = await (await page.post('/device/enrolment', { partial_uid: 'BBBB0001' }, '/device/enrolment')).text();
  assert.match(html, 'NO_OBJECT');
  assert.ok(h.store.deviceKeys.get('00BBBB0001')!.key, 'its key is untouched');
});

test('the visible device is reset by either; the answers name the UID and the window, never a key', async () => {
  const res = await page.post('/device/enrolment', { partial_uid: 'aaaa0001' }, '/device/enrolment');
  assert.is(res.status, 200);
  const html = await res.text();
  assert.match(html, 'UID 00AAAA0001 may enrol until ');
  const row = h.store.deviceKeys.get('00AAAA0001')!;
  assert.equal([row.key, row.enrolUntil], [null, h.clock.now() + 3_600_000]);
  assert.ok(
    h.actions.some((a) => a.startsWith('operator: device key reset for UID 00AAAA0001')),
    'journaled with the login',
  );
  await h.store.write.deviceKeys.enrol('00AAAA0001', Buffer.alloc(32, 3));
  const answer = await api({ partial_uid: 'AAAA0001' });
  assert.equal(answer, {
    status: 200,
    body: { uid: '00AAAA0001', enrolment_open_until: new Date(h.clock.now() + 3_600_000).toISOString() },
  });
  assert.is(h.store.deviceKeys.get('00AAAA0001')!.key, null);
});

test('a user without device_control gets 403 from the API and the refusal page', async () => {
  const viewer = await h.token(3);
  const res = await h.app.request('/api/device-enrolment', {
    method: 'POST',
    headers: { Authorization: `Bearer ${viewer}` },
    body: '{"partial_uid":"AAAA0001"}',
  });
  assert.is(res.status, 403);
});

test.run();
