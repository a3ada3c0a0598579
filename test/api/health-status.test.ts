import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { VIEWER, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

test('GET /health needs no token and is 200 {"status":"ok"} while nothing is failing', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'ok');
  h.health.report('out:1', 'output', 'degraded', 'backlog 30');
  await expectResponse(await call(h, 'GET', '/health'), 200, { status: 'ok' });
  const head = await call(h, 'HEAD', '/health');
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
});

test('GET /health is 503 listing the failing components', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'failed', 'EADDRINUSE');
  h.health.report('out:1', 'output', 'starting');
  h.health.report('rx:udp:2', 'receiver', 'ok');
  await expectResponse(await call(h, 'GET', '/health'), 503, {
    status: 'failing',
    components: [
      { name: 'rx:tcp:1', state: 'failed', detail: 'EADDRINUSE' },
      { name: 'out:1', state: 'starting', detail: null },
    ],
  });
});

test('GET /api/status needs a token but no scope, and groups the registry by kind', async () => {
  await expectResponse(await call(h, 'GET', '/api/status'), 401, 'NOT_LOGGED_IN');
  h.clock.advance(5000);
  h.health.report('rx:tcp:1', 'receiver', 'ok', null, { connections: 3 });
  h.health.report('out:1', 'output', 'failed', 'no ACK', { backlog: 12 });
  const token = await h.token(VIEWER.id);
  const since = new Date(h.clock.now()).toISOString();
  const storeSince = new Date(h.health.get('store')!.since).toISOString();
  await expectResponse(await call(h, 'GET', '/api/status', { token }), 200, {
    instance_name: 'site-7',
    version: '9.9.9-test',
    started_at: '2026-01-01T10:59:59.500Z',
    uptime_s: 3605,
    store: { state: 'ok' },
    receivers: [{ name: 'rx:tcp:1', kind: 'receiver', state: 'ok', detail: null, since, metrics: { connections: 3 } }],
    outputs: [{ name: 'out:1', kind: 'output', state: 'failed', detail: 'no ACK', since, metrics: { backlog: 12 } }],
    components: [{ name: 'store', kind: 'store', state: 'ok', detail: null, since: storeSince, metrics: { schema_version: MIGRATIONS.length } }],
  });
});

test('the status reports the store state as the registry has it', async () => {
  const token = await h.token(VIEWER.id);
  await h.store.stop();
  const body = (await (await call(h, 'GET', '/api/status', { token })).json()) as { store: { state: string } };
  assert.equal(body.store, { state: 'stopped' });
  await expectResponse(await call(h, 'GET', '/health'), 503, { status: 'failing', components: [{ name: 'store', state: 'stopped', detail: null }] });
});

test.run();
