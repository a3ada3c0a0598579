/**
 * Event and object queries through the page and the API with the same limited user (issue #28
 * item 2): both call queryEvents / queryObjects (src/services), so both list exactly the rows of
 * receiver 1, never receiver 2's or the gateway's own, whatever filter is asked for, and refuse
 * the same parameters.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NewEvent } from '../../src/core/event-row.js';
import { START, VIEWER, call } from '../api/harness.js';
import { Browser } from '../web/web-harness.js';
import { createParity, type Parity } from './parity-fixture.js';
import { alarmEvent } from '../api/alarm-event.js';

let p: Parity;
let ids: { r1: number; r2: number; gateway: number };
test.before.each(async () => {
  p = await createParity();
  const base: NewEvent = alarmEvent({ account: '1111' });
  const [r1, r2, gateway] = (
    await p.h.store.write.events.append([
      base,
      { ...base, receiverId: 2, receiverKind: 'udp', transport: 'udp', account: '2222', receivedAt: START + 1 },
      {
        ...base,
        receiverId: null,
        receiverKind: null,
        transport: null,
        remoteAddress: null,
        account: '',
        protocol: 'internal',
        receivedAt: START + 2,
      },
    ] as NewEvent[])
  ).map((r) => r.id);
  ids = { r1: r1!, r2: r2!, gateway: gateway! };
});
test.after.each(async () => {
  await p.h.close();
});

async function apiIds(path: string): Promise<number[]> {
  const res = await p.api('GET', path);
  assert.is(res.status, 200, path);
  return ((await res.json()) as { items: { id: number }[] }).items.map((i) => i.id);
}

async function pageIds(path: string, attribute: string): Promise<number[]> {
  const res = await p.page.get(path);
  assert.is(res.status, 200, path);
  return [...(await res.text()).matchAll(new RegExp(`${attribute}="(\\d+)"`, 'g'))].map((m) => Number(m[1]));
}

test('events: both edges list receiver 1 only, with or without a filter naming receiver 2', async () => {
  for (const query of ['', '?receiver=2', '?account=2222', '?code=BA']) {
    const expected = query === '' || query === '?code=BA' ? [ids.r1] : [];
    assert.equal(await apiIds(`/api/events${query}`), expected, `API ${query}`);
    assert.equal(await pageIds(`/events${query}`, 'data-id'), expected, `page ${query}`);
  }
});

test('objects: both edges list receiver 1 only, with or without a filter naming receiver 2', async () => {
  const visible = p.h.store.objects.list({ receiverIds: [1], limit: 100 }).items.map((o) => o.id);
  assert.is(visible.length, 3);
  for (const query of ['', '?receiver=2', '?account=2222', '?account=3333']) {
    const api = await apiIds(`/api/objects${query}`);
    const page = await pageIds(`/objects${query}`, 'data-object');
    assert.equal(page, api, `same rows for ${query}`);
    assert.ok(
      api.every((id) => visible.includes(id)),
      `only receiver 1 for ${query}`,
    );
  }
  assert.is((await apiIds('/api/objects?account=3333')).length, 1);
});

test('the same bad parameter is refused by both edges with the same message', async () => {
  const api = await p.api('GET', '/api/events?receiver=0&acount=1');
  assert.is(api.status, 400);
  assert.is(await api.text(), 'receiver: must be an integer between 1 and 2147483647\nacount: unknown parameter');
  const page = await p.page.get('/events?receiver=0&acount=1');
  assert.is(page.status, 400);
  assert.match(await page.text(), 'must be an integer between 1 and 2147483647');
  const objects = await p.api('GET', '/api/objects?limit=0');
  assert.is(objects.status, 400);
  assert.is((await p.page.get('/objects?limit=0')).status, 400);
});

test('a user without the scope: both edges refuse both listings', async () => {
  const viewer = new Browser(p.h, '192.0.2.63');
  assert.is((await viewer.login(VIEWER.login, VIEWER.password)).status, 303);
  const token = await p.h.token(VIEWER.id);
  assert.is((await call(p.h, 'GET', '/api/objects', { token })).status, 403);
  assert.is((await viewer.get('/objects')).status, 403);
});

test.run();
