/**
 * #28.3: the live tail (GET /events/live, real SSE over a real HTTP server on loopback) ends within
 * one re-check interval when its session loses the right to it, in each way that can happen:
 * the user deleted, their password changed, visible_receivers narrowed, the `events` scope removed,
 * api_jwt_secret rotated, the token expired, the session logged out. An event stored after the revocation never reaches
 * the stream; a settings change that leaves the user's rights alone keeps it open.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo, Server } from 'node:net';
import type { NewEvent } from '../../src/core/event-row.js';
import { RECHECK_MS } from '../../src/services/live-authority.js';
import { ADMIN, OPERATOR, VIEWER } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from './web-harness.js';
import { alarmEvent } from '../api/alarm-event.js';

let h: WebHarness;
let server: Server;
let base: string;

test.before.each(async () => {
  h = await createWebHarness();
  server = createAdaptorServer({ fetch: h.app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.each(async () => {
  (server as unknown as { closeAllConnections(): void }).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

function event(account: string): NewEvent {
  return alarmEvent({ account });
}

async function store(account: string): Promise<void> {
  for (const { id } of await h.store.write.events.append([event(account)])) h.bus.emit('stored', id);
}

interface Live {
  /** Reads until the stream ends or `ms` pass; returns the text and whether it ended. */
  readUntilEnd(ms: number): Promise<{ text: string; ended: boolean; afterMs: number }>;
  readUntil(needle: string, ms: number): Promise<string>;
  cancel(): Promise<void>;
}

async function openLive(userLogin: string, password: string): Promise<Live> {
  const browser = new Browser(h);
  const login = await browser.login(userLogin, password);
  assert.is(login.status, 303);
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  logoutElsewhere = async () => assert.is((await browser.post('/logout', {}, '/')).status, 303);
  const res = await fetch(`${base}/events/live`, { headers: { cookie } });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  // One read in flight at a time: a read that outlives a timeout is awaited by the next step.
  let pending: ReturnType<typeof reader.read> | null = null;
  const step = async (until: number): Promise<void> => {
    pending ??= reader.read();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>(
      (r) => (timer = setTimeout(() => r('timeout'), Math.max(1, until - Date.now()))),
    );
    const read = await Promise.race([pending, timeout]);
    clearTimeout(timer);
    if (read === 'timeout') return;
    pending = null;
    if (read.done) ended = true;
    else text += decoder.decode(read.value);
  };
  const live: Live = {
    async readUntilEnd(ms) {
      const started = Date.now();
      const until = started + ms;
      while (!ended && Date.now() < until) await step(until);
      return { text, ended, afterMs: Date.now() - started };
    },
    async readUntil(needle, ms) {
      const until = Date.now() + ms;
      while (!ended && !text.includes(needle) && Date.now() < until) await step(until);
      return text;
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
  assert.match(await live.readUntil('event: ready', 3000), 'event: ready');
  return live;
}

const record = (u: { id: number; login: string }, scopes: string[], custom: number[] | null) => ({
  id: u.id,
  login: u.login,
  token_time: 60,
  scopes,
  visible_receivers: { all: custom === null, custom: custom ?? [] },
});
const ADMIN_R = record(ADMIN, ['settings', 'users', 'events', 'objects'], null);
const OPERATOR_R = record(OPERATOR, ['events', 'objects'], [1]);
const VIEWER_R = record(VIEWER, ['events'], null);

const REVOCATIONS: Array<[string, () => Promise<unknown>]> = [
  ['the user is deleted', () => h.settings.update({ users: [ADMIN_R, OPERATOR_R] })],
  [
    'the password changes',
    () => h.settings.update({ users: [ADMIN_R, OPERATOR_R, { ...VIEWER_R, password: 'another-password-3' }] }),
  ],
  [
    'visible_receivers is narrowed',
    () => h.settings.update({ users: [ADMIN_R, OPERATOR_R, record(VIEWER, ['events'], [2])] }),
  ],
  [
    'the events scope is removed',
    () => h.settings.update({ users: [ADMIN_R, OPERATOR_R, record(VIEWER, ['objects'], null)] }),
  ],
  ['api_jwt_secret is rotated', () => h.settings.update({ api: { api_jwt_secret: 'f'.repeat(64) } })],
  ['the token expires', async () => h.clock.advance(60 * 60_000)],
];
// The session logs out in another tab: the page's logout revokes the token (#28.7).
let logoutElsewhere: () => Promise<unknown> = async () => undefined;
REVOCATIONS.push(['the session logs out', () => logoutElsewhere()]);

for (const [how, revoke] of REVOCATIONS) {
  test(`the live tail ends within one re-check interval when ${how}`, async () => {
    const live = await openLive(VIEWER.login, VIEWER.password);
    try {
      await store('1111');
      assert.match(await live.readUntil('"account":"1111"', 3000), '"account":"1111"', 'streams before');
      const result = await revoke();
      if (result && typeof result === 'object' && 'ok' in result)
        assert.ok((result as { ok: boolean }).ok, JSON.stringify(result));
      await store('2222');
      // One interval, plus scheduling slack on a loaded machine.
      const end = await live.readUntilEnd(RECHECK_MS + 1500);
      assert.ok(end.ended, `still open after ${end.afterMs} ms`);
      assert.not.match(end.text, '2222', 'nothing stored after the revocation reaches the stream');
      assert.match(end.text, 'event: ended');
    } finally {
      await live.cancel();
    }
  });
}

test('a settings change that leaves the user alone keeps the live tail open', async () => {
  const live = await openLive(VIEWER.login, VIEWER.password);
  try {
    const saved = await h.settings.update({
      general: { instance_name: 'cabinet-9' },
      users: [ADMIN_R, { ...OPERATOR_R, password: 'changed-op-pass' }, VIEWER_R],
    });
    assert.ok(saved.ok);
    const end = await live.readUntilEnd(RECHECK_MS * 2 + 200);
    assert.not.ok(end.ended);
    await store('3333');
    assert.match(await live.readUntil('"account":"3333"', 3000), '"account":"3333"');
  } finally {
    await live.cancel();
  }
});

test.run();
