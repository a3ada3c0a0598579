/**
 * GET /api/events/stream over a real HTTP server on loopback, read by a real SSE client (fetch and
 * the parser in test/helpers/sse-client.ts): live delivery, resume after a disconnect with
 * Last-Event-ID (exactly the missed events, in order), visible receivers, the contract's 401/403,
 * the end of the stream when the token is revoked or expires, heartbeats and the stream bound.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAdaptorServer } from '@hono/node-server';
import { connect, type AddressInfo, type Server } from 'node:net';
import { createApp } from '../../src/api/app.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { ADMIN, OPERATOR, TEXT, VIEWER, call, createHarness, type Harness } from './harness.js';
import { openSse, type SseClient, type SseMessage } from '../helpers/sse-client.js';
import { alarmEvent } from './alarm-event.js';

let h: Harness;
let server: Server;
let base: string;
let listeners: Set<(id: number) => void>;
const opened: SseClient[] = [];

test.before.each(async () => {
  h = await createHarness();
  listeners = new Set();
  const app = createApp({
    ...h.deps,
    onEventStored: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    eventStream: { perUser: 2, total: 3, heartbeatMs: 150, pageSize: 50, stallMs: 500 },
  });
  server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.each(async () => {
  for (const c of opened.splice(0)) await c.close();
  (server as unknown as { closeAllConnections(): void }).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

function event(account: string, receiverId: number | null = 1): NewEvent {
  return alarmEvent({
    account,
    receiverId,
    receiverKind: receiverId === 2 ? 'udp' : 'tcp',
    raw: new Uint8Array([0x0a, 0x42]),
  });
}

/** Stores events as the ingest does: committed, then announced. */
async function store(events: NewEvent[]): Promise<number[]> {
  const ids = (await h.store.write.events.append(events)).map((r) => r.id);
  for (const id of ids) for (const l of listeners) l(id);
  return ids;
}

function accounts(n: number, prefix = 'A'): NewEvent[] {
  return Array.from({ length: n }, (_, i) => event(`${prefix}${String(i).padStart(4, '0')}`));
}

async function open(token: string, query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  const client = await openSse(`${base}/api/events/stream${query}`, { Authorization: `Bearer ${token}`, ...headers });
  opened.push(client);
  return client;
}

/** Waits for the `ready` message (the stream is subscribed) and returns its `after`. */
async function ready(client: SseClient): Promise<number> {
  assert.is(client.response.status, 200);
  const m = await client.collect((x) => x.event === 'ready', 3000);
  assert.is(m.at(-1)?.event, 'ready');
  return (JSON.parse(m.at(-1)!.data) as { after: number }).after;
}

async function events(client: SseClient, count: number, ms = 5000): Promise<SseMessage[]> {
  const got = await client.collect((_m, all) => all.filter((x) => x.event === 'message').length >= count, ms);
  return got.filter((x) => x.event === 'message');
}

const ids = (messages: SseMessage[]) => messages.map((m) => Number(m.id));

test('events arrive live, one JSON object per event with the id in the SSE id field, fields as GET /api/events', async () => {
  const token = await h.token(ADMIN.id);
  const client = await open(token);
  assert.is(client.response.headers.get('content-type'), 'text/event-stream');
  assert.is(await ready(client), 0);
  const stored = await store([event('1001'), event('1002'), event('1003')]);
  const got = await events(client, 3);
  assert.equal(ids(got), stored);
  const listing = (await (await call(h, 'GET', '/api/events', { token })).json()) as { items: unknown[] };
  assert.equal(
    got.map((m) => JSON.parse(m.data)),
    [...listing.items].reverse(),
  );
  assert.is(JSON.parse(got[0]!.data).raw, '0A42');
});

test('a client that disconnects resumes with Last-Event-ID and gets exactly the missed events, in order', async () => {
  const token = await h.token(ADMIN.id);
  const first = await open(token);
  await ready(first);
  const early = await store(accounts(5));
  const seen = await events(first, 5);
  assert.equal(ids(seen), early);
  await first.close();
  // stored while nobody listens: more than two pages of the stream's 50
  const missed = (await h.store.write.events.append(accounts(137, 'M'))).map((r) => r.id);
  const second = await open(token, '', { 'Last-Event-ID': first.parser.lastEventId });
  assert.is(await ready(second), early.at(-1));
  const backlog = await events(second, 137);
  assert.equal(ids(backlog), missed);
  // then live, right after the backlog, without a duplicate
  const live = await store([event('L0001')]);
  const next = await events(second, 1);
  assert.equal(ids(next), live);
  assert.is(await second.next(300).then((m) => (m?.event === 'comment' ? null : m)), null);
});

test('?after= resumes too; Last-Event-ID wins over it (an EventSource reconnects to the URL it opened)', async () => {
  const token = await h.token(ADMIN.id);
  const all = (await h.store.write.events.append(accounts(10))).map((r) => r.id);
  const byParam = await open(token, `?after=${all[3]}`);
  assert.is(await ready(byParam), all[3]);
  assert.equal(ids(await events(byParam, 6)), all.slice(4));
  await byParam.close();
  const both = await open(token, `?after=${all[3]}`, { 'Last-Event-ID': String(all[7]) });
  assert.is(await ready(both), all[7]);
  assert.equal(ids(await events(both, 2)), all.slice(8));
  await both.close();
  const fromStart = await open(token, '?after=0');
  assert.equal(ids(await events(fromStart, 10)), all);
});

test('a user limited to receiver 1 never gets receiver 2 events nor the gateway own ones, even when asking for them', async () => {
  const token = await h.token(OPERATOR.id);
  const mine = await open(token);
  const other = await open(token, '?receiver=2');
  await ready(mine);
  await ready(other);
  const stored = await store([
    event('R2-1', 2),
    event('R1-1', 1),
    event('GW-1', null),
    event('R2-2', 2),
    event('R1-2', 1),
  ]);
  const got = await events(mine, 2);
  assert.equal(ids(got), [stored[1], stored[4]]);
  assert.equal(
    got.map((m) => JSON.parse(m.data).account),
    ['R1-1', 'R1-2'],
  );
  const none = await other.collect(() => false, 600);
  assert.equal(none, []);
  // resuming from before them all changes nothing
  await mine.close();
  const again = await open(token, '?after=0');
  assert.equal(ids(await events(again, 2)), [stored[1], stored[4]]);
  assert.equal(await again.collect(() => false, 400), []);
});

test('the filters of GET /api/events apply (account, code), through the same parsers', async () => {
  const token = await h.token(ADMIN.id);
  // "from now" is the newest event the caller sees, filters aside
  const [newest] = await store([event('9999')]);
  const client = await open(token, '?account=4242&code=ba');
  assert.is(await ready(client), newest);
  const stored = await store([event('1111'), event('4242'), event('4242', 2)]);
  assert.equal(ids(await events(client, 2)), [stored[1], stored[2]]);
  const bad = await fetch(`${base}/api/events/stream?cursor=5&limit=10&receiver=x`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.is(bad.status, 400);
  assert.is(
    await bad.text(),
    'receiver: must be an integer between 1 and 2147483647\ncursor: unknown parameter\nlimit: unknown parameter',
  );
  const badId = await fetch(`${base}/api/events/stream`, {
    headers: { Authorization: `Bearer ${token}`, 'Last-Event-ID': 'abc' },
  });
  assert.is(badId.status, 400);
  assert.is(await badId.text(), 'Last-Event-ID: must be an integer between 0 and 9007199254740991');
});

test('no token is 401 NOT_LOGGED_IN, a token without `events` 403 FORBIDDEN, another method 405 (contract §Authentication)', async () => {
  const none = await fetch(`${base}/api/events/stream`);
  assert.is(none.status, 401);
  assert.is(none.headers.get('content-type'), TEXT);
  assert.is(none.headers.get('www-authenticate'), 'Bearer');
  assert.is(await none.text(), 'NOT_LOGGED_IN');
  const forged = await fetch(`${base}/api/events/stream`, { headers: { Authorization: 'Bearer abc.def.ghi' } });
  assert.is(forged.status, 401);
  assert.is(await forged.text(), 'NOT_LOGGED_IN');
  const noScope = await fetch(`${base}/api/events/stream`, {
    headers: { Authorization: `Bearer ${await h.token(ADMIN.id, ['objects'])}` },
  });
  assert.is(noScope.status, 403);
  assert.is(noScope.headers.get('content-type'), TEXT);
  assert.is(await noScope.text(), 'FORBIDDEN');
  const post = await fetch(`${base}/api/events/stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await h.token(ADMIN.id)}` },
  });
  assert.is(post.status, 405);
  assert.is(post.headers.get('allow'), 'GET');
  assert.is(await post.text(), 'Method Not Allowed');
  const head = await fetch(`${base}/api/events/stream`, {
    method: 'HEAD',
    headers: { Authorization: `Bearer ${await h.token(ADMIN.id)}` },
  });
  assert.is(head.status, 405);
  assert.is(head.headers.get('allow'), 'GET');
});

test('logout of the token ends the stream within the re-check interval; nothing stored after reaches it', async () => {
  const token = await h.token(ADMIN.id);
  const client = await open(token);
  await ready(client);
  const res = await call(h, 'POST', '/api/logout', { token });
  assert.is(res.status, 200);
  await store([event('AFTER')]);
  const rest = await client.collect((m) => m.event === 'ended', 3000);
  assert.equal(
    rest.map((m) => m.event),
    ['ended'],
  );
  assert.is(rest[0]!.data, '{"reason":"revoked"}');
  assert.is(await client.next(1000), null);
  assert.ok(client.ended, 'the server closed the stream');
  // and the token opens no new one
  const again = await fetch(`${base}/api/events/stream`, { headers: { Authorization: `Bearer ${token}` } });
  assert.is(again.status, 401);
});

test("narrowing the user's visible_receivers in the settings ends the stream before a hidden event is sent", async () => {
  const record = (u: { id: number; login: string }, scopes: string[], custom: number[] | null) => ({
    id: u.id,
    login: u.login,
    token_time: 60,
    scopes,
    visible_receivers: { all: custom === null, custom: custom ?? [] },
  });
  const client = await open(await h.token(VIEWER.id));
  await ready(client);
  const saved = await h.settings.update({
    users: [
      record(ADMIN, ['settings', 'users', 'events', 'objects'], null),
      record(OPERATOR, ['events', 'objects'], [1]),
      record(VIEWER, ['events'], [1]),
    ],
  });
  assert.ok(saved.ok);
  await store([event('HIDDEN', 2)]);
  const rest = await client.collect((m) => m.event === 'ended', 3000);
  assert.equal(
    rest.map((m) => m.event),
    ['ended'],
  );
});

test('the stream ends when its token expires', async () => {
  const token = await h.token(ADMIN.id, undefined, 1);
  const client = await open(token);
  await ready(client);
  h.clock.advance(61_000);
  const rest = await client.collect((m) => m.event === 'ended', 3000);
  assert.equal(
    rest.map((m) => m.event),
    ['ended'],
  );
});

test('a `: ping` comment comes every heartbeat interval while nothing happens', async () => {
  const client = await open(await h.token(ADMIN.id));
  await ready(client);
  const got = await client.collect((_m, all) => all.length >= 2, 2000, true);
  assert.equal(
    got.map((m) => [m.event, m.data]),
    [
      ['comment', 'ping'],
      ['comment', 'ping'],
    ],
  );
});

test('streams are bounded per user and in all: 429 TOO_MANY_STREAMS, and a closed stream gives its slot back', async () => {
  const admin = await h.token(ADMIN.id);
  const a = await open(admin);
  await ready(a);
  await ready(await open(admin));
  const third = await fetch(`${base}/api/events/stream`, { headers: { Authorization: `Bearer ${admin}` } });
  assert.is(third.status, 429);
  assert.is(third.headers.get('retry-after'), '5');
  assert.is(await third.text(), 'TOO_MANY_STREAMS');
  const operator = await h.token(OPERATOR.id);
  await ready(await open(operator));
  const total = await fetch(`${base}/api/events/stream`, { headers: { Authorization: `Bearer ${operator}` } });
  assert.is(total.status, 429);
  await total.text();
  await a.close();
  // the server notices the closed socket on its side
  const deadline = Date.now() + 3000;
  let reopened: SseClient | null = null;
  while (Date.now() < deadline) {
    const c = await open(admin);
    if (c.response.status === 200) {
      reopened = c;
      break;
    }
    await c.response.text();
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(reopened, 'a slot came back');
  await ready(reopened!);
});

test('a client that stops reading is cut off once a write waits longer than the stall bound, and its slot comes back', async () => {
  const token = await h.token(ADMIN.id);
  // ~4.5 KB per event: 3,000 of them overfill the loopback socket buffers of a reader that reads nothing
  const big = (i: number): NewEvent => ({ ...event(`S${i}`), raw: new Uint8Array(2048).fill(i % 256) });
  await h.store.write.events.append(Array.from({ length: 3000 }, (_, i) => big(i)));
  const port = (server.address() as AddressInfo).port;
  const socket = connect(port, '127.0.0.1');
  socket.pause();
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  socket.write(`GET /api/events/stream?after=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  const deadline = Date.now() + 8000;
  while (!h.logs.some((l) => l.includes('event stream ended') && l.includes('stalled')) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  assert.ok(
    h.logs.some((l) => l.includes('event stream ended') && l.includes('stalled')),
    'the server ended the stalled stream',
  );
  // reading now drains what the kernel held, then the connection is gone, not ended cleanly
  let bytes = 0;
  socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
  socket.resume();
  const closeBy = Date.now() + 5000;
  while (!closed && Date.now() < closeBy) await new Promise((r) => setTimeout(r, 50));
  assert.ok(closed, 'the socket was closed by the server');
  assert.ok(bytes < 3000 * 4096, `only part of the backlog was sent (${bytes} bytes)`);
  // both of the user's slots are free again
  await ready(await open(token));
  await ready(await open(token));
});

test.run();
