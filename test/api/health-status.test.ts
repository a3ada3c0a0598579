import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { OPERATOR, VIEWER, call, createHarness, expectResponse, type Harness } from './harness.js';

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

test('GET /health without a token is 503 {"status":"failing"} and nothing more: no component name, state or detail', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'failed', 'EADDRINUSE');
  h.health.report('rx:modem:2', 'receiver', 'failed', 'SIM PIN refused');
  h.health.report('first-boot', 'first-boot', 'failed', 'vigil-setup.txt rejected: line 2: network');
  h.health.report('rx:udp:3', 'receiver', 'ok');
  await expectResponse(await call(h, 'GET', '/health'), 503, { status: 'failing' });
  const head = await call(h, 'HEAD', '/health');
  assert.is(head.status, 503);
  assert.is(await head.text(), '');
  // A proxy's own credentials are not a Vigil token: the caller stays anonymous.
  await expectResponse(await call(h, 'GET', '/health', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }), 503, {
    status: 'failing',
  });
});

test('GET /health with a token lists the failing components the caller sees: receiver 1 and gateway-wide ones for a user limited to receiver 1', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'failed', 'EADDRINUSE');
  h.health.report('out:1', 'output', 'starting');
  h.health.report('rx:udp:2', 'receiver', 'failed', 'EACCES');
  h.health.report('serial:/dev/ttyUSB2', 'serial-port', 'failed', 'ENOENT', { receiver_id: 2 });
  h.health.report('rx:udp:2:links', 'receiver', 'failed', 'UID B0B000005678 account 7722 claimed from 192.0.2.9');
  h.health.report('first-boot', 'first-boot', 'failed', 'vigil-setup.txt rejected');
  h.health.report('rx:udp:3', 'receiver', 'ok');
  const limited = await call(h, 'GET', '/health', { token: await h.token(OPERATOR.id) });
  await expectResponse(limited, 503, {
    status: 'failing',
    components: [
      { name: 'rx:tcp:1', state: 'failed', detail: 'EADDRINUSE' },
      { name: 'out:1', state: 'starting', detail: null },
      { name: 'first-boot', state: 'failed', detail: 'vigil-setup.txt rejected' },
    ],
  });
  const all = (await (await call(h, 'GET', '/health', { token: await h.token(VIEWER.id) })).json()) as {
    components: { name: string }[];
  };
  assert.equal(
    all.components.map((c) => c.name),
    ['rx:tcp:1', 'out:1', 'rx:udp:2', 'serial:/dev/ttyUSB2', 'rx:udp:2:links', 'first-boot'],
  );
  // Only receiver 2 failing: the code and word are the gateway's, and nothing is listed for receiver 1's user.
  for (const [name, kind] of [
    ['rx:tcp:1', 'receiver'],
    ['out:1', 'output'],
    ['first-boot', 'first-boot'],
  ] as const)
    h.health.report(name, kind, 'ok');
  await expectResponse(await call(h, 'GET', '/health', { token: await h.token(OPERATOR.id) }), 503, {
    status: 'failing',
    components: [],
  });
});

test('GET /health: a Bearer token that is refused is 401 like on every token endpoint; all-ok is 200 for everyone', async () => {
  const refused = await call(h, 'GET', '/health', { headers: { Authorization: 'Bearer e30.e30.' } });
  assert.is(refused.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
  await expectResponse(refused, 401, 'NOT_LOGGED_IN');
  await expectResponse(await call(h, 'GET', '/health', { token: await h.token(OPERATOR.id) }), 200, { status: 'ok' });
  await expectResponse(await call(h, 'DELETE', '/health'), 405, 'Method Not Allowed');
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
    components: [
      {
        name: 'store',
        kind: 'store',
        state: 'ok',
        detail: null,
        since: storeSince,
        metrics: { schema_version: MIGRATIONS.length },
      },
    ],
  });
});

test('the status reports the store state as the registry has it', async () => {
  const token = await h.token(VIEWER.id);
  await h.store.stop();
  const body = (await (await call(h, 'GET', '/api/status', { token })).json()) as { store: { state: string } };
  assert.equal(body.store, { state: 'stopped' });
  await expectResponse(await call(h, 'GET', '/health'), 503, { status: 'failing' });
  await expectResponse(await call(h, 'GET', '/health', { token }), 503, {
    status: 'failing',
    components: [{ name: 'store', state: 'stopped', detail: null }],
  });
});

test('GET /api/status for a user limited to receiver 1: no component of receiver 2, and no receiver component whose receiver cannot be told', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'ok', null, { connections: 1 });
  h.health.report('rx:udp:2', 'receiver', 'ok', null, { connections: 4 });
  h.health.report('rx:udp:2:links', 'receiver', 'degraded', 'UID B0B000005678 account 7722 claimed from 192.0.2.9');
  h.health.report('rx-legacy', 'receiver', 'degraded', 'account 7733 silent');
  h.health.report('serial:/dev/ttyUSB2', 'serial-port', 'ok', null, { receiver_id: 2 });
  h.health.report('out:1', 'output', 'ok', null, { backlog: 0 });
  const names = async (userId: number) => {
    const body = (await (await call(h, 'GET', '/api/status', { token: await h.token(userId) })).json()) as Record<
      'receivers' | 'outputs' | 'components',
      { name: string }[]
    >;
    return [...body.receivers, ...body.outputs, ...body.components].map((c) => c.name);
  };
  const limited = await names(OPERATOR.id);
  assert.equal(limited, ['rx:tcp:1', 'out:1', 'store']);
  assert.equal(await names(VIEWER.id), [
    'rx:tcp:1',
    'rx:udp:2',
    'rx:udp:2:links',
    'rx-legacy',
    'out:1',
    'store',
    'serial:/dev/ttyUSB2',
  ]);
});

test.run();
