/**
 * The API's listeners take their share of the admission budget (docs/security.md "Admission", doors `http`
 * and `https`): 19,950 idle connections to the HTTPS port once took the gateway to 19,988 of 20,000
 * descriptors and blocked its event loop for seconds. Now: sockets per source and at the door, in the same
 * descriptor budget as the receivers; a socket that completes no TLS handshake or request in time is closed;
 * a logged-in user's source is served first. Real HTTP and HTTPS listeners on loopback (127.0.0.2/.3 are
 * strangers); at most 90 sockets.
 */
import { connect, type Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Admission } from '../../src/core/admission/admission.js';
import { systemClock } from '../../src/core/clock.js';
import { HttpListeners } from '../../src/api/http-listeners.js';
import { silentLogger } from '../../src/core/logger.js';
import { createSelfSignedCertificate } from '../../src/init/self-signed.js';
import { ADMISSION_DEFAULTS } from '../../src/settings/schema-admission.js';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { createWebHarness, type WebHarness } from '../web/web-harness.js';

const PAIR = createSelfSignedCertificate({ commonName: 'localhost', altNames: ['127.0.0.1'], validDays: 1 });

let h: WebHarness;
let admission: Admission;
let listeners: HttpListeners;
let loggedIn = false;

async function start(limits: Partial<typeof ADMISSION_DEFAULTS>): Promise<void> {
  h = await createWebHarness();
  admission = new Admission({
    clock: systemClock,
    limits: () => ({ ...ADMISSION_DEFAULTS, ...limits }),
    autoSockets: () => 1000,
  });
  await admission.start();
  listeners = new HttpListeners(
    h.app.fetch,
    {
      host: '127.0.0.1',
      httpPort: await freePort(),
      httpsPort: await freePort(),
      tls: { key: PAIR.keyPem, cert: PAIR.certPem },
      admission: { admission, loggedIn: async () => loggedIn, uploads: [] },
    },
    h.health,
    silentLogger,
  );
  await listeners.start();
}

async function stop(): Promise<void> {
  await listeners.stop();
  await admission.stop();
  await h.close();
}

/** Opens `count` idle TCP connections from `from`; resolves once each is connected (or refused). */
async function idle(port: number, from: string, count: number): Promise<Socket[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect({ port, host: '127.0.0.1', localAddress: from });
          s.on('error', () => undefined);
          s.once('connect', () => resolve(s));
          s.once('close', () => resolve(s));
        }),
    ),
  );
  await sleep(300);
  return sockets;
}

function open(sockets: readonly Socket[]): number {
  return sockets.filter((s) => !s.destroyed && s.readyState === 'open').length;
}

function health(port: number, from: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: '/health', localAddress: from, rejectUnauthorized: false, agent: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('idle connections are capped per source and at the door, where strangers are shed for newcomers and logged-in users first', async () => {
  await start({ api_max_sockets: 40, api_max_sockets_per_source: 10, api_stranger_accepts_per_s: 1000 });
  const https = listeners.ports().https!;
  const all: Socket[] = [];
  try {
    const first = await idle(https, '127.0.0.2', 30);
    all.push(...first);
    assert.is(open(first), 10, 'ten per source');
    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) all.push(...(await idle(https, from, 10)));
    assert.is(open(all), 40, 'forty at the door');
    assert.is(open(first), 0, "the last source's ten went in place of the first's, the longest idle");
    assert.is(admission.counts.get('https', 'source-sockets'), 20);
    assert.is(admission.counts.get('https', 'shed'), 10);
    assert.is(admission.pool.used, 40, 'counted in the descriptor budget every door shares');
    // A logged-in user's source is known: its request gets a slot in place of an idle stranger.
    admission.users.add('127.0.0.7');
    assert.is(await health(https, '127.0.0.7'), 200);
    assert.is(admission.counts.get('https', 'shed'), 11);
  } finally {
    for (const s of all) s.destroy();
    await stop();
  }
});

test('a socket that completes no TLS handshake, or no request, in time is closed and counted', async () => {
  await start({ tls_handshake_timeout_s: 1, request_headers_timeout_s: 1 });
  const { http, https } = listeners.ports();
  try {
    const [tls] = await idle(https!, '127.0.0.2', 1);
    const [plain] = await idle(http!, '127.0.0.2', 1);
    await waitFor(() => tls!.destroyed && plain!.destroyed, 5000);
    assert.ok(admission.counts.get('https', 'timeout') >= 1);
    assert.ok(admission.counts.get('http', 'timeout') >= 1);
    assert.is(admission.pool.used, 0, 'their slots are given back');
  } finally {
    await stop();
  }
});

test("strangers' new HTTPS sockets have an accept rate in all (TLS handshakes cost CPU); logged-in users' do not", async () => {
  await start({ api_stranger_accepts_per_s: 5 });
  const https = listeners.ports().https!;
  const all: Socket[] = [];
  try {
    // Twelve at once from three sources: one second's worth (5) gets in, the rest are closed and counted.
    all.push(
      ...(await Promise.all(['127.0.0.2', '127.0.0.3', '127.0.0.4'].map((from) => idle(https, from, 4)))).flat(),
    );
    const admitted = open(all);
    assert.ok(admitted >= 5 && admitted <= 6, `${admitted} of 12 admitted`);
    assert.is(admission.counts.get('https', 'total-rate'), 12 - admitted);
    admission.users.add('127.0.0.5');
    assert.is(await health(https, '127.0.0.5'), 200, "a logged-in user's source is not held by it");
  } finally {
    for (const s of all) s.destroy();
    await stop();
  }
});

test('a request with a valid login makes its socket trusted and its source known', async () => {
  await start({});
  const { http } = listeners.ports();
  try {
    loggedIn = true;
    const res = await fetch(`http://127.0.0.1:${http}/health`);
    assert.is(res.status, 200);
    assert.ok(admission.users.has('127.0.0.1'));
  } finally {
    loggedIn = false;
    await stop();
  }
});

test.run();
