import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { instantParam } from '../../src/services/query-params.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { ADMIN, OPERATOR, START, VIEWER, call, createHarness, expectResponse, type Harness } from './harness.js';
import { alarmEvent } from './alarm-event.js';

// Users (harness): ADMIN sees all receivers, scopes events+objects; OPERATOR sees receiver 1 only;
// VIEWER sees all but has only `events`.
let h: Harness;
let admin: string;
let operator: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
  operator = await h.token(OPERATOR.id);
});
test.after.each(async () => {
  await h.close();
});

const MIN = 60_000;

function event(overrides: Partial<NewEvent> = {}): NewEvent {
  return alarmEvent({ raw: new Uint8Array([0x0a, 0x41, 0xff, 0x0d]), ...overrides });
}

/** Appends events and returns their ids in input order. */
async function append(...events: NewEvent[]): Promise<number[]> {
  return (await h.store.write.events.append(events)).map((r) => r.id);
}

interface Page {
  items: { id: number }[];
  next_cursor: string | null;
}

async function page(path: string, token = admin): Promise<Page> {
  const res = await call(h, 'GET', path, { token });
  const text = await res.text();
  assert.is(res.status, 200, text);
  return JSON.parse(text) as Page;
}

const ids = (p: Page) => p.items.map((i) => i.id);

/** Follows next_cursor to the end (at most 50 pages) and returns every id seen. */
async function walk(path: string, token = admin): Promise<{ ids: number[]; pages: number }> {
  const seen: number[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= 50; pages += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const p = await page(cursor === null ? path : `${path}${sep}cursor=${cursor}`, token);
    seen.push(...ids(p));
    if (p.next_cursor === null) return { ids: seen, pages };
    cursor = p.next_cursor;
  }
  throw new Error('paging did not end within 50 pages');
}

test('an event is shown with every field, times as ISO 8601 and the raw frame as upper-case hex', async () => {
  const [id] = await append(
    event({ deviceTime: START - 5000, objectId: 9, text: 'Front door', flags: 1, encrypted: true }),
  );
  await expectResponse(await call(h, 'GET', '/api/events', { token: admin }), 200, {
    items: [
      {
        id,
        received_at: '2026-01-01T12:00:00.000Z',
        device_time: '2026-01-01T11:59:55.000Z',
        receiver_id: 1,
        transport: 'tcp',
        remote_address: '198.51.100.7',
        account: '1234',
        object_id: 9,
        protocol: 'SIA-DCS',
        encrypted: true,
        event_class: 'alarm',
        qualifier: 'E',
        code: 'BA',
        group_no: '01',
        zone_no: '005',
        text: 'Front door',
        flags: 1,
        raw: '0A41FF0D',
      },
    ],
    next_cursor: null,
  });
});

test('an empty journal is an empty page; events come newest first', async () => {
  await expectResponse(await call(h, 'GET', '/api/events', { token: admin }), 200, { items: [], next_cursor: null });
  const added = await append(event(), event({ receivedAt: START + 1 }), event({ receivedAt: START + 2 }));
  assert.equal(ids(await page('/api/events')), [...added].reverse());
});

test('paging by cursor visits every event exactly once, newest first, with and without a filter', async () => {
  const all = await append(
    ...Array.from({ length: 25 }, (_, i) => event({ account: i % 2 ? '1234' : '0042', receivedAt: START + i })),
  );
  const first = await page('/api/events?limit=7');
  assert.is(first.items.length, 7);
  assert.is(first.next_cursor, String(first.items[6]!.id));
  const walked = await walk('/api/events?limit=7');
  assert.equal(walked.ids, [...all].reverse());
  assert.is(walked.pages, 4);
  const odd = all.filter((_, i) => i % 2 === 1).reverse();
  assert.equal((await walk('/api/events?account=1234&limit=5')).ids, odd);
  // A page that ends exactly at the last row has no cursor: no empty extra page.
  assert.equal((await walk('/api/events?limit=5')).pages, 5);
});

test('events appended while paging do not shift the pages (cursor by id)', async () => {
  const old = await append(...Array.from({ length: 6 }, () => event()));
  const first = await page('/api/events?limit=3');
  await append(event(), event());
  const second = await page(`/api/events?limit=3&cursor=${first.next_cursor}`);
  assert.equal([...ids(first), ...ids(second)], [...old].reverse());
});

test('limit defaults to 100 and accepts 1 and 1000', async () => {
  await append(...Array.from({ length: 1001 }, () => event()));
  const byDefault = await page('/api/events');
  assert.is(byDefault.items.length, 100);
  assert.ok(byDefault.next_cursor !== null);
  assert.is((await page('/api/events?limit=1')).items.length, 1);
  const max = await page('/api/events?limit=1000');
  assert.is(max.items.length, 1000);
  assert.is((await page(`/api/events?limit=1000&cursor=${max.next_cursor}`)).items.length, 1);
});

test('filters: receiver, account exactly, code case-insensitively, half-open time windows', async () => {
  const [a, b, c, d] = await append(
    event({ receivedAt: START }),
    event({ receivedAt: START + MIN, receiverId: 2, receiverKind: 'udp', account: '001234' }),
    event({ receivedAt: START + 2 * MIN, code: 'FA' }),
    event({ receivedAt: START + 3 * MIN, code: '130', protocol: 'ADM-CID' }),
  );
  assert.equal(ids(await page('/api/events?receiver=2')), [b]);
  assert.equal(ids(await page('/api/events?account=1234')), [d, c, a]);
  assert.equal(ids(await page('/api/events?account=001234')), [b]);
  assert.equal(ids(await page('/api/events?code=fa')), [c]);
  assert.equal(ids(await page('/api/events?code=130')), [d]);
  assert.equal(ids(await page(`/api/events?from=${START + MIN}&to=${START + 3 * MIN}`)), [c, b]);
  assert.equal(ids(await page('/api/events?from=2026-01-01T12:01:00Z&to=2026-01-01T12:03:00.000Z')), [c, b]);
  assert.equal(ids(await page('/api/events?from=2026-01-01T13:02:00%2B01:00')), [d, c]);
  assert.equal(
    ids(await page('/api/events?from=2026-01-01T13:02:00+01:00')),
    [d, c],
    'an unencoded + arrives as a space',
  );
  assert.equal(ids(await page('/api/events?from=2026-01-01T11:03-01:00')), [d]);
  assert.equal(ids(await page(`/api/events?from=${START}&to=${START}`)), [], 'equal bounds are an empty window');
  assert.equal(ids(await page('/api/events?to=2026-01-01')), [], 'a date alone is midnight UTC');
  assert.equal(ids(await page('/api/events?receiver=1&account=1234&code=BA&to=2026-01-02')), [a]);
});

test('bad parameters are 400 text/plain `<param>: <reason>`, one line each', async () => {
  const cases: [string, string][] = [
    ['limit=0', 'limit: must be an integer between 1 and 1000'],
    ['limit=1001', 'limit: must be an integer between 1 and 1000'],
    ['limit=01', 'limit: must be an integer between 1 and 1000'],
    ['limit=1.5', 'limit: must be an integer between 1 and 1000'],
    ['limit=-1', 'limit: must be an integer between 1 and 1000'],
    ['receiver=0', 'receiver: must be an integer between 1 and 2147483647'],
    ['receiver=abc', 'receiver: must be an integer between 1 and 2147483647'],
    ['cursor=0', 'cursor: must be the next_cursor of a previous page'],
    ['cursor=x1', 'cursor: must be the next_cursor of a previous page'],
    ['cursor=99999999999999999', 'cursor: must be the next_cursor of a previous page'],
    ['code=B-A', 'code: must be 1 to 8 letters or digits'],
    ['account=' + 'A'.repeat(65), 'account: must be at most 64 characters'],
    ['account=12%0A34', 'account: must not contain control characters'],
    ['account=', 'account: must not be empty'],
    ['limit=5&limit=6', 'limit: must be given at most once'],
    ['acount=1234', 'acount: unknown parameter'],
    ['state=online', 'state: unknown parameter'],
    ['to=1000&from=2000', 'to: must not be before from'],
    [
      'limit=0&receiver=x&bogus=1',
      'receiver: must be an integer between 1 and 2147483647\nlimit: must be an integer between 1 and 1000\nbogus: unknown parameter',
    ],
  ];
  for (const bad of [
    '2026-02-30T00:00:00Z',
    '2026-01-01T12:00:00',
    '2026-13-01',
    'yesterday',
    '1e12',
    '-5',
    '2026-01-01T24:00:00Z',
    '99999999999999999',
  ]) {
    cases.push([
      `from=${encodeURIComponent(bad)}`,
      'from: must be an ISO 8601 date-time with a time zone (2026-01-01T12:00:00Z) or milliseconds since the epoch',
    ]);
  }
  for (const [query, body] of cases) {
    await expectResponse(await call(h, 'GET', `/api/events?${query}`, { token: admin }), 400, body);
  }
  await expectResponse(await call(h, 'GET', '/api/objects?from=1', { token: admin }), 400, 'from: unknown parameter');
});

test('instants: ISO 8601 with Z or an offset, ms epoch, fractions cut to milliseconds, leap days checked', () => {
  assert.equal(instantParam('2026-01-01T12:00:00Z'), { ok: true, value: START });
  assert.equal(instantParam('2026-01-01T12:00:00.123456Z'), { ok: true, value: START + 123 });
  assert.equal(instantParam('2026-01-01T14:30:00+0230'), { ok: true, value: START });
  assert.equal(instantParam(String(START)), { ok: true, value: START });
  assert.equal(instantParam('2028-02-29'), { ok: true, value: Date.UTC(2028, 1, 29) });
  assert.is(instantParam('2027-02-29').ok, false);
});

test('visible receivers: a limited user never sees other receivers or gateway events, even when asking for them', async () => {
  const [r1, , internal] = await append(
    event({ receiverId: 1 }),
    event({ receiverId: 2, receiverKind: 'udp' }),
    event({ receiverId: null, receiverKind: null, protocol: 'INTERNAL', eventClass: 'internal', account: '0000' }),
  );
  assert.equal(ids(await page('/api/events', operator)), [r1]);
  await expectResponse(await call(h, 'GET', '/api/events?receiver=2', { token: operator }), 200, {
    items: [],
    next_cursor: null,
  });
  assert.equal(ids(await page('/api/events?account=0000', operator)), []);
  assert.is((await page('/api/events')).items.length, 3);
  assert.equal(ids(await page('/api/events?account=0000')), [internal]);
  const viewer = await h.token(VIEWER.id);
  assert.is((await page('/api/events', viewer)).items.length, 3);
});

test('scopes, authentication and methods: 401 first, then 405 with Allow, then 403', async () => {
  const viewer = await h.token(VIEWER.id);
  const noEvents = await h.token(ADMIN.id, ['objects']);
  for (const path of ['/api/events', '/api/objects']) {
    await expectResponse(await call(h, 'GET', path), 401, 'NOT_LOGGED_IN');
    await expectResponse(await call(h, 'POST', path), 401, 'NOT_LOGGED_IN');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const res = await call(h, method, path, { token: noEvents });
      assert.is(res.headers.get('allow'), 'GET, HEAD');
      await expectResponse(res, 405, 'Method Not Allowed');
    }
  }
  await expectResponse(await call(h, 'GET', '/api/events', { token: noEvents }), 403, 'FORBIDDEN');
  await expectResponse(await call(h, 'GET', '/api/objects', { token: viewer }), 403, 'FORBIDDEN');
  await expectResponse(await call(h, 'GET', '/api/events?limit=0', { token: noEvents }), 403, 'FORBIDDEN');
});

test('HEAD answers 200 with no body and changes nothing', async () => {
  await append(event());
  for (const path of ['/api/events', '/api/objects']) {
    const res = await call(h, 'HEAD', path, { token: admin });
    assert.is(res.status, 200);
    assert.is(await res.text(), '');
  }
  assert.is(h.store.events.maxId(), 1);
});

test('a closed store answers 503 `Database is not ready` as text', async () => {
  await h.store.stop();
  await expectResponse(await call(h, 'GET', '/api/events', { token: admin }), 503, 'Database is not ready');
  await expectResponse(await call(h, 'GET', '/api/objects', { token: admin }), 503, 'Database is not ready');
});

// ---- objects ---------------------------------------------------------------------------

async function device(uid: string | null, account: string, receiverId = 1, at = START) {
  return await h.store.write.objects.upsertMain({
    uid,
    account,
    receiverId,
    receiverKind: receiverId === 1 ? 'tcp' : 'udp',
    transport: 'tcp',
    remoteAddress: '198.51.100.7',
    hwId: uid ? 'HW-7' : null,
    at,
  });
}

test('an object is shown with every field; oid is the account while no override is set', async () => {
  const d = await device('00A1B2C3D4', '0042');
  await h.store.write.objects.markSeen(d.id, START + MIN, '198.51.100.8', { ping: true });
  await h.store.write.objects.setConnectionState(d.id, 'online');
  await expectResponse(await call(h, 'GET', '/api/objects', { token: admin }), 200, {
    items: [
      {
        id: d.id,
        uid: '00A1B2C3D4',
        account: '0042',
        oid: '0042',
        override_oid: null,
        hw_id: 'HW-7',
        main_object_id: null,
        receiver_id: 1,
        transport: 'tcp',
        remote_address: '198.51.100.8',
        first_seen: '2026-01-01T12:00:00.000Z',
        last_seen: '2026-01-01T12:01:00.000Z',
        last_ping: '2026-01-01T12:01:00.000Z',
        connection_state: 'online',
        dc09_quirks: [],
      },
    ],
    next_cursor: null,
  });
});

test('override OIDs are resolved: by UID, by account, and per related object', async () => {
  const withUid = await device('00A1B2C3D4', '0042');
  const plain = await device(null, '1234');
  const related = await h.store.write.objects.upsertRelated(withUid.id, '0077', { at: START });
  await h.store.write.overrides.set({
    matchKind: 'uid',
    matchValue: '00a1b2c3d4',
    relatedOid: null,
    overrideOid: '9001',
  });
  await h.store.write.overrides.set({ matchKind: 'oid', matchValue: '1234', relatedOid: null, overrideOid: '9002' });
  await h.store.write.overrides.set({
    matchKind: 'uid',
    matchValue: '00A1B2C3D4',
    relatedOid: '0077',
    overrideOid: '9003',
  });
  const body = (await page('/api/objects')) as unknown as { items: Record<string, unknown>[] };
  const pick = (o: Record<string, unknown>) => [
    o.id,
    o.account,
    o.oid,
    o.override_oid,
    o.main_object_id,
    o.receiver_id,
  ];
  assert.equal(body.items.map(pick), [
    [related.id, '0077', '9003', '9003', withUid.id, 1],
    [plain.id, '1234', '9002', '9002', null, 1],
    [withUid.id, '0042', '9001', '9001', null, 1],
  ]);
  // Only the related object on the page: its main device is read from the store.
  const only = (await page('/api/objects?limit=1')) as unknown as { items: Record<string, unknown>[] };
  assert.equal(only.items.map(pick), [[related.id, '0077', '9003', '9003', withUid.id, 1]]);
});

test('objects: filters, paging without duplicates or gaps, and visible receivers', async () => {
  const made: number[] = [];
  for (let i = 0; i < 11; i++) made.push((await device(null, i === 0 || i === 3 ? '0042' : `A${i}`, i % 2 ? 2 : 1)).id);
  assert.equal((await walk('/api/objects?limit=4')).ids, [...made].reverse());
  const onTwo = made.filter((_, i) => i % 2).reverse();
  assert.equal((await walk('/api/objects?receiver=2&limit=2')).ids, onTwo);
  assert.equal(ids(await page('/api/objects?account=0042')), [made[3], made[0]]);
  const onOne = made.filter((_, i) => i % 2 === 0).reverse();
  assert.equal((await walk('/api/objects?limit=3', operator)).ids, onOne);
  await expectResponse(await call(h, 'GET', '/api/objects?receiver=2', { token: operator }), 200, {
    items: [],
    next_cursor: null,
  });
  await expectResponse(
    await call(h, 'GET', '/api/objects?limit=1001', { token: admin }),
    400,
    'limit: must be an integer between 1 and 1000',
  );
});

test.run();
