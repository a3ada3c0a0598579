/**
 * The page's views over the real API parts (app.request, no browser): filters validated by the
 * API's parsers with the message beside the field, lost objects first, the live tail's visibility
 * (a user limited to receiver 1 gets nothing of receiver 2 on the stream), overrides, grants,
 * the restart confirmation, and views refused without their scope.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NewEvent } from '../../src/core/event-row.js';
import { ADMIN, OPERATOR, START, VIEWER } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from './web-harness.js';
import { SseParser } from '../helpers/sse-client.js';
import { alarmEvent } from '../api/alarm-event.js';

let h: WebHarness;
test.before.each(async () => {
  h = await createWebHarness();
});
test.after.each(async () => {
  await h.close();
});

function event(overrides: Partial<NewEvent> = {}): NewEvent {
  return alarmEvent({ ...overrides });
}

test('events: a bad filter is answered with the API message beside its field; paging uses the API cursors', async () => {
  await h.store.write.events.append(
    Array.from({ length: 60 }, (_, i) => event({ receivedAt: START + i, account: i % 2 ? '1234' : '0042' })),
  );
  const b = new Browser(h);
  await b.login(ADMIN.login, ADMIN.password);
  const bad = await b.get('/events?receiver=abc&account=');
  assert.is(bad.status, 400);
  assert.match(
    await bad.text(),
    /name="receiver"[^>]*aria-invalid="true"[^>]*\/><p class="field-error"[^>]*>must be an integer between 1 and 2147483647<\/p>/,
  );
  const page = await (await b.get('/events?account=1234')).text();
  assert.is((page.match(/<tr data-id=/g) ?? []).length, 30);
  const first = await (await b.get('/events')).text();
  assert.is((first.match(/<tr data-id=/g) ?? []).length, 50);
  assert.match(first, /<a href="\/events\?cursor=\d+" rel="next">/);
});

test('objects: lost ones first; a limited user lists only their receivers', async () => {
  const seen = (uid: string, account: string, receiverId: number) =>
    h.store.write.objects.upsertMain({ uid, account, receiverId, receiverKind: 'tcp', at: START });
  const a = await seen('AAAA0001', '1001', 1);
  await seen('BBBB0002', '2002', 2);
  const c = await seen('CCCC0003', '3003', 1);
  await h.store.write.objects.setConnectionState(a.id, 'lost');
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  const html = await (await admin.get('/objects')).text();
  const lost = html.slice(html.indexOf('id="lost-objects"'), html.indexOf('id="objects"'));
  assert.match(lost, 'AAAA0001');
  assert.not.match(lost, 'CCCC0003');
  const search = await (await admin.get('/objects?q=0003')).text();
  assert.match(search, 'CCCC0003');
  assert.not.match(search.slice(search.indexOf('id="objects"')), 'AAAA0001');
  const operator = new Browser(h);
  await operator.login(OPERATOR.login, OPERATOR.password);
  const limited = await (await operator.get('/objects')).text();
  assert.match(limited, 'AAAA0001');
  assert.not.match(limited, 'BBBB0002');
  assert.ok(c.id > 0);
});

test('the live tail streams new events after the page, only those the user may see', async () => {
  const [shown] = (await h.store.write.events.append([event()])).map((r) => r.id);
  const operator = new Browser(h);
  await operator.login(OPERATOR.login, OPERATOR.password);
  const res = await operator.get(`/events/live?after=${shown}`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type')!, 'text/event-stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const ids = (
    await h.store.write.events.append([
      event({ receiverId: 2, receiverKind: 'udp', account: '7777' }),
      event({ account: '4242' }),
    ])
  ).map((r) => r.id);
  for (const id of ids) h.bus.emit('stored', id);
  const deadline = Date.now() + 3000;
  while (!text.includes('4242') && Date.now() < deadline) {
    const step = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), 500)),
    ]);
    if (step.value) text += decoder.decode(step.value);
  }
  await reader.cancel();
  assert.match(text, 'event: ready');
  assert.match(text, `id: ${ids[1]}`);
  assert.match(text, '"account":"4242"');
  assert.not.match(text, '7777');
});

test('the live tail delivers a burst larger than one journal read whole and in order (no gap)', async () => {
  const [shown] = (await h.store.write.events.append([event()])).map((r) => r.id);
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  const res = await admin.get(`/events/live?after=${shown}`);
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const got: number[] = [];
  const ids = (
    await h.store.write.events.append(Array.from({ length: 450 }, (_, i) => event({ account: `B${i}` })))
  ).map((r) => r.id);
  for (const id of ids) h.bus.emit('stored', id);
  const deadline = Date.now() + 5000;
  while (got.length < ids.length && Date.now() < deadline) {
    const step = await Promise.race([
      reader.read(),
      new Promise<{ done: true; value: undefined }>((r) => setTimeout(() => r({ done: true, value: undefined }), 500)),
    ]);
    if (step.value)
      for (const m of parser.push(decoder.decode(step.value, { stream: true })))
        if (m.event === 'event') got.push(Number(m.id));
  }
  await reader.cancel();
  assert.equal(got, ids);
});

test('overrides: the API messages beside the field; a save is journaled; the list is for users who see every receiver', async () => {
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  const bad = await admin.post('/overrides', { uid: 'XYZ', new_override_oid: '9001' }, '/overrides');
  assert.is(bad.status, 400);
  assert.match(
    await bad.text(),
    /name="uid"[^>]*aria-invalid="true"[^>]*\/><p class="field-error"[^>]*>UID must be hexadecimal<\/p>/,
  );
  const ok = await admin.post('/overrides', { uid: 'a1b2', new_override_oid: '9001' }, '/overrides');
  assert.is(ok.status, 200);
  assert.match(await ok.text(), '<td class="mono">A1B2</td>');
  assert.ok(h.actions.includes('admin: OID override UID A1B2 set to 9001'));
  const operator = new Browser(h);
  await operator.login(OPERATOR.login, OPERATOR.password);
  const limited = await (await operator.get('/overrides')).text();
  assert.not.match(limited, 'A1B2');
  assert.match(limited, 'The list is shown to users who see every receiver.');
});

test('grants are saved through the API parser and journaled; restart needs its confirmation; views without scope are 403', async () => {
  const viewer = new Browser(h);
  await viewer.login(VIEWER.login, VIEWER.password);
  for (const path of ['/objects', '/device', '/overrides', '/settings/general', '/users', '/restart']) {
    assert.is((await viewer.get(path)).status, 403, path);
  }
  const nav = await (await viewer.get('/events')).text();
  assert.match(nav, 'href="/events"');
  assert.not.match(nav, 'href="/settings"');
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  const saved = await admin.post('/users/3/grants', { scopes: ['device_control', 'metrics'] }, '/users');
  assert.is(saved.status, 200);
  assert.equal(h.store.grants.get(3).sort(), ['device_control', 'metrics']);
  assert.ok(h.actions.includes('admin: grants of user 3 set to device_control,metrics'));
  const restarter = new Browser(h);
  await h.store.write.grants.set(1, ['restart_services'], 'test');
  await restarter.login(ADMIN.login, ADMIN.password);
  const unconfirmed = await restarter.post('/restart', {}, '/restart');
  assert.is(unconfirmed.status, 400);
  assert.is(h.restarts.count, 0);
  const confirmed = await restarter.post('/restart', { confirm: 'yes' }, '/restart');
  assert.is(confirmed.status, 200);
  assert.is(h.restarts.count, 1);
});

test.run();
