/**
 * #28.7 (transport): the plain-HTTP listener serves the box itself, redirects a LAN browser's page
 * reads to the HTTPS listener and refuses everything else from the LAN with 403 `HTTPS_REQUIRED`,
 * unless `api.allow_plain_http` is true. Real HttpListeners (HTTP and HTTPS with a self-signed pair)
 * on loopback; a client bound to 127.0.0.2 stands for a LAN client (the gate's `isLocal` names only
 * 127.0.0.1 as the box), so every socket stays on loopback. README's quick start (a client on the
 * box, plain HTTP) is checked against the real gateway too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpListeners } from '../../src/api/http-listeners.js';
import { HTTPS_REQUIRED, isLoopback, plainHttpGate } from '../../src/api/plain-http-gate.js';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { createSelfSignedCertificate } from '../../src/init/self-signed.js';
import { Gateway } from '../../src/main.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { createWebHarness, type WebHarness } from '../web/web-harness.js';
import { ADMIN, call } from './harness.js';

const LAN_CLIENT = '127.0.0.2';
const PAIR = createSelfSignedCertificate({
  commonName: 'localhost',
  altNames: ['localhost', '127.0.0.1'],
  validDays: 1,
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(
  url: string,
  options: { method?: string; from?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.from ? { localAddress: options.from } : {}),
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

let h: WebHarness;
let listeners: HttpListeners;
let http: string;
let httpsPort: number;

test.before.each(async () => {
  h = await createWebHarness();
  listeners = new HttpListeners(
    h.app.fetch,
    {
      host: '127.0.0.1',
      httpPort: await freePort(),
      httpsPort: await freePort(),
      tls: { key: PAIR.keyPem, cert: PAIR.certPem },
      plainHttp: (fetch) =>
        plainHttpGate(fetch, {
          allowPlainHttp: () => h.settings.current().api.allow_plain_http,
          httpsPort: () => listeners.ports().https ?? null,
          isLocal: (address) => address === '127.0.0.1' || address === '::ffff:127.0.0.1',
        }),
    },
    h.health,
    silentLogger,
  );
  await listeners.start();
  http = `http://127.0.0.1:${listeners.ports().http}`;
  httpsPort = listeners.ports().https!;
});
test.after.each(async () => {
  await listeners.stop();
  await h.close();
});

test('a LAN browser reading a page over plain HTTP is sent to the same path over HTTPS', async () => {
  const res = await get(`${http}/events?account=1234`, { from: LAN_CLIENT });
  assert.is(res.status, 307);
  assert.is(res.headers.location, `https://127.0.0.1:${httpsPort}/events?account=1234`);
  assert.is(res.headers['cache-control'], 'no-store');
  const head = await get(`${http}/login`, { from: LAN_CLIENT, method: 'HEAD' });
  assert.is(head.status, 307);
  // Following it: the login page over TLS.
  const page = await get(`https://127.0.0.1:${httpsPort}/login`, { from: LAN_CLIENT });
  assert.is(page.status, 200);
  assert.match(page.body, 'name="password"');
});

test("the redirect names the address the client reached, or the box's own name, never another Host header", async () => {
  const port = listeners.ports().http;
  const evil = await get(`${http}/login`, { from: LAN_CLIENT, headers: { host: `evil.example:${port}` } });
  assert.is(evil.status, 307);
  assert.is(evil.headers.location, `https://127.0.0.1:${httpsPort}/login`);
  const own = (await import('node:os')).hostname().toLowerCase();
  const named = await get(`${http}/login`, { from: LAN_CLIENT, headers: { host: `${own}:${port}` } });
  assert.is(named.headers.location, `https://${own}:${httpsPort}/login`);
});

test('LAN API calls and form posts over plain HTTP are refused before any route: 403 HTTPS_REQUIRED', async () => {
  const token = await h.token(ADMIN.id);
  const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
    [
      'POST',
      '/api/login',
      { 'content-type': 'application/json' },
      JSON.stringify({ login: ADMIN.login, password: ADMIN.password }),
    ],
    ['GET', '/api/settings', { authorization: `Bearer ${token}` }, undefined],
    ['GET', '/health', {}, undefined],
    ['GET', '/metrics', {}, undefined],
    [
      'POST',
      '/login',
      { 'content-type': 'application/x-www-form-urlencoded' },
      `login=admin&password=${ADMIN.password}`,
    ],
  ];
  for (const [method, path, headers, body] of cases) {
    const res = await get(`${http}${path}`, {
      from: LAN_CLIENT,
      method,
      headers,
      ...(body !== undefined ? { body } : {}),
    });
    assert.is(res.status, 403, `${method} ${path}`);
    assert.is(res.headers['content-type'], 'text/plain; charset=UTF-8');
    assert.is(res.body, HTTPS_REQUIRED);
  }
  // The same over HTTPS works.
  const login = await get(`https://127.0.0.1:${httpsPort}/api/login`, {
    from: LAN_CLIENT,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: ADMIN.login, password: ADMIN.password }),
  });
  assert.is(login.status, 200);
});

test('the box itself keeps plain HTTP: page, login and API from loopback', async () => {
  assert.is((await get(`${http}/login`)).status, 200);
  const login = await get(`${http}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login: ADMIN.login, password: ADMIN.password }),
  });
  assert.is(login.status, 200);
  assert.is((await get(`${http}/health`)).status, 200);
});

test('api.allow_plain_http true serves the LAN over plain HTTP, from the next request on', async () => {
  const token = await h.token(ADMIN.id);
  const put = await call(h, 'PUT', '/api/settings', { token, body: { api: { allow_plain_http: true } } });
  assert.is(put.status, 200, await put.text());
  assert.is((await get(`${http}/login`, { from: LAN_CLIENT })).status, 200);
  assert.is(
    (await get(`${http}/api/settings`, { from: LAN_CLIENT, headers: { authorization: `Bearer ${token}` } })).status,
    200,
  );
});

test('api.allow_plain_http takes booleans only; a bad value changes nothing', async () => {
  const token = await h.token(ADMIN.id);
  for (const value of ['yes', 1, null]) {
    const res = await call(h, 'PUT', '/api/settings', { token, body: { api: { allow_plain_http: value } } });
    assert.is(res.status, 400, String(value));
    assert.match(await res.text(), 'api.allow_plain_http');
  }
  assert.is(h.settings.current().api.allow_plain_http, false);
});

test('without a running HTTPS listener a LAN page read is refused, not redirected nowhere', async () => {
  const gate = plainHttpGate(() => new Response('served'), { allowPlainHttp: () => false, httpsPort: () => null });
  const res = await gate(new Request('http://box:8080/events'), {
    incoming: { socket: { remoteAddress: '192.0.2.5' } },
  });
  assert.is(res.status, 403);
  assert.is(await res.text(), HTTPS_REQUIRED);
  for (const local of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopback(local), local);
  for (const lan of ['192.0.2.5', '::ffff:192.0.2.5', 'fe80::1', undefined])
    assert.not.ok(isLoopback(lan), String(lan));
});

test('the real gateway with default settings: plain HTTP on the box (README quick start), HTTPS for the LAN', async () => {
  const dir = tempDir();
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: await freePort(),
    host: '127.0.0.1',
    logger: silentLogger,
    isLocalClient: (address) => address === '127.0.0.1',
  });
  await gateway.start();
  try {
    assert.is(gateway.settings.current().api.allow_plain_http, false);
    const base = `http://127.0.0.1:${gateway.apiPorts().http}`;
    assert.is((await get(`${base}/login`)).status, 200);
    const [name, password] = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8').trim().split('\n') as [string, string];
    const login = await get(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: name, password }),
    });
    assert.is(login.status, 200);
    const lan = await get(`${base}/login`, { from: LAN_CLIENT });
    assert.is(lan.status, 307);
    assert.is(lan.headers.location, `https://127.0.0.1:${gateway.apiPorts().https}/login`);
    assert.is(
      (
        await get(`${base}/api/login`, {
          from: LAN_CLIENT,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).body,
      HTTPS_REQUIRED,
    );
    const secure = await get(`https://127.0.0.1:${gateway.apiPorts().https}/login`, { from: LAN_CLIENT });
    assert.is(secure.status, 200);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
