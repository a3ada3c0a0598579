import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
let token: string;
test.before.each(async () => {
  h = await createHarness();
  token = (
    await h.deps.tokens.issueToken({
      sub: 'installer',
      scopes: ['settings', 'users', 'objects', 'device_control', 'restart_services'],
      minutes: 5,
    })
  ).token;
});
test.after.each(async () => {
  await h.close();
});

const LIMIT = 64 * 1024;
const BODY_ENDPOINTS: Array<{ method: string; path: string; json: boolean; auth: boolean }> = [
  { method: 'PUT', path: '/api/settings', json: false, auth: true },
  { method: 'POST', path: '/api/control-device', json: false, auth: true },
  { method: 'POST', path: '/api/config-device', json: false, auth: true },
  { method: 'PUT', path: '/api/oid-override', json: true, auth: true },
  { method: 'PUT', path: '/api/users/2/grants', json: false, auth: true },
  { method: 'POST', path: '/api/login', json: false, auth: false },
];

/** A JSON object padded with spaces to exactly `size` bytes. */
function padded(size: number): string {
  return '{}' + ' '.repeat(size - 2);
}

function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 8192));
      offset += 8192;
    },
  });
}

test('a body one byte over 64 KiB is 413 Payload Too Large on every endpoint, JSON on oid-override', async () => {
  for (const e of BODY_ENDPOINTS) {
    const res = await call(h, e.method, e.path, { token, raw: padded(LIMIT + 1) });
    await expectResponse(res, 413, e.json ? { error: 'Payload Too Large' } : 'Payload Too Large');
  }
});

test('a streamed body without Content-Length is cut at 64 KiB as well', async () => {
  for (const e of BODY_ENDPOINTS) {
    const env = { incoming: { socket: { remoteAddress: '192.0.2.1' } } };
    const init = {
      method: e.method,
      headers: { Authorization: `Bearer ${token}` },
      body: streamed(padded(LIMIT + 100)),
      duplex: 'half',
    } as RequestInit;
    const res = await h.app.request(e.path, init, env);
    await expectResponse(res, 413, e.json ? { error: 'Payload Too Large' } : 'Payload Too Large');
  }
});

test('a body of exactly 64 KiB is accepted', async () => {
  await expectResponse(await call(h, 'PUT', '/api/settings', { token, raw: padded(LIMIT) }), 200, { success: true });
});

test('authentication comes before the body limit: an anonymous oversized body is 401', async () => {
  await expectResponse(await call(h, 'PUT', '/api/settings', { raw: padded(LIMIT + 1) }), 401, 'NOT_LOGGED_IN');
});

test('malformed JSON gets each endpoint its invalid-request answer', async () => {
  const raw = '{"partial_uid": "AB", ';
  await expectResponse(await call(h, 'PUT', '/api/settings', { token, raw }), 400, 'body: must be a JSON object');
  await expectResponse(await call(h, 'POST', '/api/control-device', { token, raw }), 400, 'Invalid request');
  await expectResponse(await call(h, 'POST', '/api/config-device', { token, raw }), 400, 'Invalid request');
  await expectResponse(await call(h, 'PUT', '/api/oid-override', { token, raw }), 400, { error: 'Invalid data' });
  await expectResponse(await call(h, 'POST', '/api/login', { raw }), 400, 'Invalid request');
});

test('a failed restart is 500 E_3 and a later one succeeds', async () => {
  h.restarts.fail = new Error('rx:tcp:1 would not stop');
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token }), 500, 'E_3');
  h.restarts.fail = null;
  await expectResponse(await call(h, 'GET', '/api/restart-services', { token }), 200, { success: true });
  assert.is(h.restarts.count, 2);
});

test('over a real socket: 413 from Content-Length, and the server keeps answering', async () => {
  const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  try {
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const auth = { Authorization: `Bearer ${token}` };
    const big = await fetch(`${base}/api/oid-override`, { method: 'PUT', headers: auth, body: padded(LIMIT + 1) });
    assert.is(big.status, 413);
    assert.is(await big.text(), '{"error":"Payload Too Large"}');
    const ok = await fetch(`${base}/api/oid-override`, {
      method: 'PUT',
      headers: auth,
      body: '{"oid":"1234","new_override_oid":"99"}',
    });
    assert.is(await ok.text(), '{"success":true}');
    const admin = await h.token(ADMIN.id);
    assert.is((await fetch(`${base}/api/settings`, { headers: { Authorization: `Bearer ${admin}` } })).status, 200);
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
  }
});

test.run();
