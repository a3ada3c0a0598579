/**
 * The strangers of the siege test (test/e2e/siege.test.ts), a process of their own started with a lower
 * priority (nice): a real attacker's CPU is on other machines, so theirs must neither delay the known
 * devices' clocks in the test's process nor take the gateway's cores. Every door at once, from every
 * source address given (127.0.1.x), until `until`: connection floods and slow clients on the receivers and
 * the API, TLS handshakes and requests without a login, unauthenticated uploads, fresh-account frames over
 * TCP and UDP, device-link HELLOs asking to enrol fresh UIDs, status-output reconnects without the key.
 * Every loop is bounded by its rate and by `until`; at the end every socket is closed and the counts go
 * back to the test (one JSON line on stdout). The plan comes as JSON in argv[2].
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { encodeHello } from '../../../src/protocols/device-link/codec.js';
import { LINK_VERSION } from '../../../src/protocols/device-link/messages.js';
import { buildMessage } from '../../../src/protocols/dc09/index.js';

export interface AttackPlan {
  readonly host: string;
  readonly sources: readonly string[];
  readonly ports: { tcp: number; udp: number; http: number; https: number; status: number };
  /** Date.now() at which every loop stops. */
  readonly until: number;
}

/** What the strangers tried, and what they got (counts). */
export type AttackCounts = Record<string, number>;

const plan = JSON.parse(process.argv[2]!) as AttackPlan;
const counts: AttackCounts = {};
const open = new Set<{ destroy(): void }>();
const count = (what: string, n = 1): void => {
  counts[what] = (counts[what] ?? 0) + n;
};
const running = (): boolean => Date.now() < plan.until;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let serial = 0;
const fresh = (): string => (0x2000000 + serial++).toString(16).toUpperCase();

function tcp(port: number, from: string): Socket {
  const socket = connect({ port, host: plan.host, localAddress: from });
  socket.on('error', () => undefined);
  open.add(socket);
  socket.once('close', () => open.delete(socket));
  return socket;
}

/** Keeps `n` connections made by `make` open from one source; a closed one is made again after `againMs`. */
async function keepOpen(n: number, againMs: number, what: string, make: () => Socket): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (running()) {
        const socket = make();
        count(`${what}_attempts`);
        await new Promise<void>((resolve) => socket.once('close', () => resolve()));
        count(`${what}_closed_by_gateway`);
        await sleep(againMs);
      }
    }),
  );
}

/** Writes `build()` every `everyMs` on one connection (made again when the gateway closes it). */
async function stream(port: number, from: string, everyMs: number, what: string, build: () => Buffer): Promise<void> {
  while (running()) {
    const socket = tcp(port, from);
    socket.resume();
    let closed = false;
    socket.once('close', () => (closed = true));
    while (running() && !closed) {
      socket.write(build());
      count(what);
      await sleep(everyMs);
    }
    socket.destroy();
    await sleep(100);
  }
}

const enrolKey = (() => {
  const der = generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' });
  return der
    .subarray(der.length - 32)
    .toString('hex')
    .toUpperCase();
})();

function helloFrame(): Buffer {
  return encodeHello({
    seq: 1,
    timestamp: null,
    version: LINK_VERSION,
    uid: `5EE${fresh()}`,
    account: fresh(),
    nonce: randomBytes(16).toString('hex').toUpperCase(),
    enrolKey,
  });
}

/**
 * `perSecond` datagrams a second, fresh-account frames and junk in turn; with `burst`, also that many junk
 * datagrams at once every 5 s (more than a source's bucket holds).
 */
async function udpFlood(from: string, perSecond: number, burst: number): Promise<void> {
  const socket: UdpSocket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, from, resolve));
  socket.on('error', () => undefined);
  socket.on('message', () => count('udp_replies'));
  const junk = Buffer.from('\n1234"SIA-DCS"0001L0#1234[]\r');
  let tick = 0;
  while (running()) {
    for (let i = 0; i < perSecond / 10; i++) {
      const datagram =
        i % 2 === 0
          ? junk
          : buildMessage({ token: 'NULL', sequence: 1, receiver: 1, line: 1, account: fresh(), data: '' });
      socket.send(datagram, plan.ports.udp, plan.host);
      count('udp_datagrams');
    }
    if (burst > 0 && tick++ % 50 === 0) {
      for (let i = 0; i < burst; i++) socket.send(junk, plan.ports.udp, plan.host);
      count('udp_datagrams', burst);
    }
    await sleep(100);
  }
  socket.close();
}

/** A header line a byte at a time, one byte a second: a slow client. */
function slowHttp(from: string): Socket {
  const socket = tcp(plan.ports.http, from);
  const text = 'GET /health HTTP/1.1\r\nHost: box\r\nX-Slow: ';
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return clearInterval(timer);
    socket.write(text[i % text.length]!);
    i++;
  }, 1000);
  socket.once('close', () => clearInterval(timer));
  return socket;
}

/** TLS handshakes and requests without a login, `perSecond` a second. */
async function tlsRequests(from: string, perSecond: number): Promise<void> {
  while (running()) {
    const raw = connect({ host: plan.host, port: plan.ports.https, localAddress: from });
    raw.on('error', () => undefined);
    const socket = tlsConnect({ socket: raw, rejectUnauthorized: false });
    open.add(socket);
    socket.on('error', () => count('https_errors'));
    socket.once('close', () => open.delete(socket));
    socket.once('secureConnect', () => {
      count('https_handshakes');
      socket.write('GET /api/status HTTP/1.1\r\nHost: box\r\nConnection: close\r\n\r\n');
    });
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1').startsWith('HTTP/1.1 401')) count('https_401');
    });
    count('https_attempts');
    await sleep(1000 / perSecond);
  }
}

/** Chunked uploads without a login, one every `everyMs`: the answer must come before much is sent. */
async function uploads(from: string, everyMs: number): Promise<void> {
  let turn = 0;
  while (running()) {
    const path = turn++ % 2 === 0 ? '/api/system/restore' : '/system/restore';
    await new Promise<void>((resolve) => {
      let sent = 0;
      // Answered, or closed by the gateway (refused or shed): either way nothing more is sent.
      let answered = false;
      const req = httpRequest({
        host: plan.host,
        port: plan.ports.http,
        path,
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/octet-stream', 'x-vigil-backup-passphrase': 'correct horse battery' },
      });
      req.on('response', (res) => {
        answered = true;
        count(`upload_${res.statusCode}`);
        count('upload_bytes_before_answer', sent);
        res.resume();
        req.destroy();
        resolve();
      });
      req.on('error', () => {
        if (!answered) count('upload_closed_by_gateway');
        answered = true;
        resolve();
      });
      req.on('close', () => resolve());
      // 256 KiB every 50 ms (5 MiB/s) up to 16 MiB: the answer must come long before the end.
      const chunk = Buffer.alloc(256 * 1024, 0x55);
      const pump = (): void => {
        if (answered) return;
        if (sent >= 16 * 1024 * 1024 || !running()) {
          count(sent >= 16 * 1024 * 1024 ? 'upload_unanswered' : 'upload_cut_by_end');
          req.end();
          return;
        }
        sent += chunk.length;
        req.write(chunk);
        setTimeout(pump, 50);
      };
      pump();
      count('upload_attempts');
    });
    await sleep(everyMs);
  }
}

/** Connects to the status output without the key: reads what comes, leaves. */
async function statusReconnects(from: string, everyMs: number): Promise<void> {
  while (running()) {
    const socket = tcp(plan.ports.status, from);
    socket.on('data', (chunk: Buffer) => count('status_bytes', chunk.length));
    count('status_attempts');
    await sleep(everyMs);
    socket.destroy();
  }
}

async function source(from: string, index: number): Promise<void> {
  const { tcp: tcpPort, https } = plan.ports;
  await Promise.all([
    keepOpen(30, 100, 'tcp_idle', () => tcp(tcpPort, from)),
    stream(tcpPort, from, 100, 'tcp_fresh_frames', () =>
      buildMessage({ token: 'NULL', sequence: 1, receiver: 1, line: 1, account: fresh(), data: '' }),
    ),
    stream(tcpPort, from, 100, 'link_hellos', helloFrame),
    udpFlood(from, 20, index < 10 ? 1100 : 0),
    keepOpen(4, 100, 'http_slow', () => slowHttp(from)),
    keepOpen(4, 100, 'https_idle', () => tcp(https, from)),
    tlsRequests(from, 1),
    uploads(from, 2000),
    statusReconnects(from, 1000),
  ]);
}

// At the end every socket goes, so that every loop waiting on one ends too.
setTimeout(
  () => {
    for (const socket of open) socket.destroy();
  },
  Math.max(0, plan.until - Date.now()),
);
await Promise.all(plan.sources.map((from, index) => source(from, index)));
for (const socket of open) socket.destroy();
process.stdout.write(`${JSON.stringify(counts)}\n`);
process.exit(0);
