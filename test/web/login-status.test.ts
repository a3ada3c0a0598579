/**
 * The page's session and status view over the real API parts: login with the API's accounts and
 * throttle, the cookie's flags, CSRF and Origin checks, and the status view's visibility rules.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, OPERATOR } from '../api/harness.js';
import { Browser, createWebHarness, type WebHarness } from './web-harness.js';

let h: WebHarness;
test.before.each(async () => {
  h = await createWebHarness();
});
test.after.each(async () => {
  await h.close();
});

test('a page without a session redirects to the login form; the form sets only a login CSRF cookie', async () => {
  const b = new Browser(h);
  const res = await b.get('/');
  assert.is(res.status, 303);
  assert.is(res.headers.get('location'), '/login');
  const form = await b.get('/login');
  assert.is(form.status, 200);
  assert.ok(b.cookies.has('vigil_login'));
  assert.not.ok(b.cookies.has('vigil_session'));
  const csp = form.headers.get('content-security-policy')!;
  assert.match(csp, "script-src 'self'");
  assert.not.match(csp, 'unsafe-inline');
  assert.not.match(await form.text(), /<script>|style="/);
});

test('wrong password, then the right one: an HttpOnly SameSite=Strict session cookie and the action journaled', async () => {
  const b = new Browser(h);
  const wrong = await b.login(ADMIN.login, 'nope');
  assert.is(wrong.status, 401);
  assert.match(await wrong.text(), 'Wrong login or password.');
  const token = await b.csrf('/login');
  const ok = await b.request('POST', '/login', {
    _csrf: token,
    login: ADMIN.login,
    password: ADMIN.password,
    next: '/events',
  });
  assert.is(ok.status, 303);
  assert.is(ok.headers.get('location'), '/events');
  const cookie = ok.headers.getSetCookie().find((c) => c.startsWith('vigil_session='))!;
  assert.match(cookie, 'HttpOnly');
  assert.match(cookie, 'SameSite=Strict');
  assert.not.match(cookie, 'Secure'); // plain HTTP here; HTTPS adds Secure (session.ts isHttps)
  assert.equal(h.actions, ['admin: logged in to the page']);
  const page = await b.get('/');
  assert.is(page.status, 200);
  assert.match(await page.text(), '<span class="who">admin</span>');
});

test('login failures share the API throttle: five failures on the page, then the API itself answers 429', async () => {
  const b = new Browser(h, '192.0.2.77');
  for (let i = 0; i < 5; i++) assert.is((await b.login(ADMIN.login, `bad-${i}`)).status, 401);
  const throttled = await b.login(ADMIN.login, ADMIN.password);
  assert.is(throttled.status, 429);
  assert.match(await throttled.text(), 'Too many failed attempts from this address. Try again in 1 s.');
  const api = await h.app.request(
    '/api/login',
    { method: 'POST', body: JSON.stringify({ login: ADMIN.login, password: ADMIN.password }) },
    { incoming: { socket: { remoteAddress: '192.0.2.77' } } },
  );
  assert.is(api.status, 429);
});

test('the login form refuses a post without its CSRF cookie value or from another origin', async () => {
  const b = new Browser(h);
  await b.get('/login');
  const noToken = await b.request('POST', '/login', { login: ADMIN.login, password: ADMIN.password });
  assert.is(noToken.status, 403);
  const token = await b.csrf('/login');
  const foreign = await b.request(
    'POST',
    '/login',
    { _csrf: token, login: ADMIN.login, password: ADMIN.password },
    { Origin: 'http://evil.example' },
  );
  assert.is(foreign.status, 403);
  assert.not.ok(b.cookies.has('vigil_session'));
});

test('state-changing posts: no cookie is 401, no or wrong CSRF token is 403, the right one works', async () => {
  const anonymous = new Browser(h);
  assert.is((await anonymous.request('POST', '/logout', { _csrf: 'x' })).status, 401);
  const b = new Browser(h);
  await b.login(ADMIN.login, ADMIN.password);
  assert.is((await b.request('POST', '/logout', {})).status, 403);
  assert.is((await b.request('POST', '/logout', { _csrf: 'forged' })).status, 403);
  const other = new Browser(h);
  await other.login(OPERATOR.login, OPERATOR.password);
  // Another session's token is no good either: the token is bound to the session.
  assert.is((await b.request('POST', '/logout', { _csrf: await other.csrf('/') })).status, 403);
  const out = await b.post('/logout', {}, '/');
  assert.is(out.status, 303);
  assert.not.ok(b.cookies.has('vigil_session'));
});

test('status lists every registry component generically; a user limited to receiver 1 sees nothing of receiver 2', async () => {
  h.health.report('rx:tcp:1', 'receiver', 'ok', null, {
    connections: 3,
    events: 10,
    rejected: 1,
    naks: 0,
    listening: '0.0.0.0:10001',
  });
  h.health.report('rx:udp:2', 'receiver', 'failed', 'EADDRINUSE', { connections: 0 });
  h.health.report('modem:ttyUSB2', 'modem', 'ok', null, { csq: 18, rssi_dbm: -77, receiver_id: 2 });
  h.health.report('rx:modem:3', 'receiver', 'degraded', 'signal low (csq 6)', {
    csq: 6,
    rssi_dbm: -101,
    registered: true,
  });
  h.health.report('serial:ttyS0', 'serial', 'degraded', 'no data', { bytes_in: 1024 });
  h.health.report('out:1', 'output', 'ok', null, {
    connected: true,
    backlog: 4,
    last_ack_at: h.clock.now() - 5000,
    delivered: 9,
    protocol: 'ADEMCO-685',
  });
  // A TCP server output (type 5): where it listens, its client and the strangers it refused.
  h.health.report('out:2', 'output', 'degraded', 'disconnected: closed by client', {
    connected: false,
    listening: '0.0.0.0:1025',
    client: null,
    refused_clients: 2,
  });
  h.health.report('out:3', 'output', 'ok', null, {
    connected: true,
    listening: '0.0.0.0:1026',
    client: '192.0.2.7:40000',
    refused_clients: 0,
  });
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  const all = await (await admin.get('/')).text();
  for (const name of ['rx:tcp:1', 'rx:udp:2', 'modem:ttyUSB2', 'serial:ttyS0', 'out:1'])
    assert.match(all, `data-component="${name}"`);
  assert.match(all, 'rssi dbm');
  assert.match(all, '<td data-label="Signal">csq 6 (-101 dBm)</td>');
  assert.match(all, '<td data-label="Link">up</td>');
  assert.match(all, '<td data-label="Link">listening on 0.0.0.0:1025, no client; 2 refused</td>');
  assert.match(all, '<td data-label="Link">listening on 0.0.0.0:1026, client 192.0.2.7:40000</td>');
  assert.match(all, '<div class="detail protocol">ADEMCO-685</div>', 'the output row names its protocol');
  const operator = new Browser(h);
  await operator.login(OPERATOR.login, OPERATOR.password);
  const limited = await (await operator.get('/')).text();
  assert.match(limited, 'data-component="rx:tcp:1"');
  assert.not.match(limited, 'rx:udp:2');
  assert.not.match(limited, 'modem:ttyUSB2');
  // The API's status applies the same rule (src/services/status-body.ts).
  const token = await h.token(OPERATOR.id);
  const api = await (await h.app.request('/api/status', { headers: { Authorization: `Bearer ${token}` } })).text();
  assert.match(api, 'rx:tcp:1');
  assert.not.match(api, 'rx:udp:2');
});

test('the central database: the summary shows the server in use and the lag; the component lists the installation', async () => {
  const admin = new Browser(h);
  await admin.login(ADMIN.login, ADMIN.password);
  assert.not.match(await (await admin.get('/')).text(), 'Central database');
  h.health.report(
    'mysql-sync',
    'sync',
    'degraded',
    '127.0.0.1:3307: connect ECONNREFUSED; retrying on 127.0.0.1:3308 in 1 s',
    {
      connected: false,
      lag: 42,
      last_sync_at: null,
      server: '127.0.0.1:3308',
      installation: '5a0c8c43-0d0e-4a43-9a55-1f1f5e7b1c2a',
    },
  );
  const html = await (await admin.get('/')).text();
  assert.match(
    html,
    /data-kpi="mysql-sync"><dt>Central database<\/dt><dd><span class="pill state-degraded">degraded<\/span> 127\.0\.0\.1:3308 · lag 42/,
  );
  assert.match(html, '5a0c8c43-0d0e-4a43-9a55-1f1f5e7b1c2a');
  assert.match(html, 'retrying on 127.0.0.1:3308 in 1 s');
});

test('the stylesheet and script are files with a content hash and long caching; pages stay small', async () => {
  const b = new Browser(h);
  await b.login(ADMIN.login, ADMIN.password);
  const html = await (await b.get('/')).text();
  const css = /href="(\/assets\/vigil\.css\?v=[0-9a-f]{12})"/.exec(html)![1]!;
  const js = /src="(\/assets\/vigil\.js\?v=[0-9a-f]{12})"/.exec(html)![1]!;
  for (const path of [css, js]) {
    const res = await b.get(path);
    assert.is(res.status, 200);
    assert.match(res.headers.get('cache-control')!, 'immutable');
    assert.ok((await res.text()).length > 500);
  }
  assert.ok(Buffer.byteLength(html) < 100 * 1024);
});

test.run();
