import { connect, createServer, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Admission } from '../../src/core/admission/admission.js';
import { ManualClock } from '../../src/core/clock.js';
import { isVigilError } from '../../src/core/errors.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { StatusDecoder, StatusEncoder, type StatusChange, type StatusObject } from '../../src/status-output/frame.js';
import type { SnapshotSource } from '../../src/status-output/status-client.js';
import { StatusOutput, type StatusOutputOptions } from '../../src/status-output/status-output.js';
import { ADMISSION_DEFAULTS } from '../../src/settings/schema-admission.js';
import { LOOPBACK, sleep, waitFor } from '../helpers/net.js';

const AT = Date.UTC(2026, 0, 1, 0, 0, 0);
const KEY = 'Sixteen-char-key';

function change(id: number, kind: StatusChange['kind'] = 'link_test'): StatusChange {
  return {
    kind,
    at: AT + id,
    object: {
      id,
      account: String(1000 + id),
      uid: null,
      receiverId: 1,
      mainObjectId: null,
      connectionState: kind === 'lost' ? 'lost' : 'online',
    },
  };
}

/** The objects as the store would page them. */
function pages(objects: readonly StatusObject[]): SnapshotSource {
  return {
    count: () => objects.length,
    page: (afterId, limit) => objects.filter((o) => o.id > afterId).slice(0, limit),
  };
}

function admissionFor(clock: ManualClock, limits: Partial<typeof ADMISSION_DEFAULTS> = {}): Admission {
  return new Admission({
    clock,
    // Tests connect often from one address; the connect rate has a test of its own.
    limits: () => ({ ...ADMISSION_DEFAULTS, status_output_connects_per_source_per_min: 1000, ...limits }),
    autoSockets: () => 1000,
  });
}

interface Harness {
  output: StatusOutput;
  health: HealthRegistry;
  admission: Admission;
  stop(): Promise<void>;
}

async function startOutput(
  options: Partial<StatusOutputOptions> = {},
  limits: Partial<typeof ADMISSION_DEFAULTS> = {},
): Promise<Harness> {
  const clock = new ManualClock(AT);
  const health = new HealthRegistry(() => clock.now());
  const admission = admissionFor(clock, limits);
  await admission.start();
  const output = new StatusOutput(
    {
      port: 0,
      host: LOOPBACK,
      encryptionKey: null,
      instanceName: 'test-site',
      objects: pages([]),
      heartbeatMs: 0,
      ...options,
    },
    { health, logger: silentLogger, clock, admission },
  );
  await output.start();
  return {
    output,
    health,
    admission,
    stop: async () => {
      await output.stop();
      await admission.stop();
    },
  };
}

interface Client {
  socket: Socket;
  bytes: Buffer[];
  frames: Array<Record<string, unknown> | null>;
  /** Lines received (every frame is one). */
  lines: number;
  closed: boolean;
}

/** A dashboard; with `key` it answers the challenge with the key (`proveWith`: another key, or none). */
async function client(
  port: number,
  key: string | null = null,
  read = true,
  proveWith: string | null = key,
  countOnly = false,
): Promise<Client> {
  const socket = connect(port, LOOPBACK);
  const decoder = new StatusDecoder(key);
  const c: Client = { socket, bytes: [], frames: [], lines: 0, closed: false };
  socket.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) c.lines++;
    // A counting client (`read` false after the first frames) keeps its event loop for the output under test.
    if (c.lines > 2 && countOnly) return;
    c.bytes.push(chunk);
    for (const frame of decoder.push(chunk)) {
      c.frames.push(frame);
      if (frame?.type === 'challenge' && proveWith !== null)
        socket.write(new StatusEncoder(proveWith).encode({ type: 'auth', nonce: String(frame.nonce) }));
    }
  });
  socket.on('close', () => (c.closed = true));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  if (!read) socket.pause();
  return c;
}

test('a client gets the hello frame and the snapshot at connect, then live changes, byte for byte', async () => {
  const h = await startOutput({ objects: pages([change(1, 'state').object]) });
  try {
    const c = await client(h.output.port());
    await waitFor(() => c.frames.length === 2);
    h.output.publish(change(2, 'lost'));
    await waitFor(() => c.frames.length === 3);
    assert.is(
      Buffer.concat(c.bytes).toString(),
      '{"v":1,"type":"hello","at":"2026-01-01T00:00:00.000Z","instance":"test-site","objects":1}\n' +
        '{"v":1,"type":"state","at":"2026-01-01T00:00:00.000Z","object_id":1,"main_object_id":null,"account":"1001","uid":null,"receiver_id":1,"state":"online"}\n' +
        '{"v":1,"type":"lost","at":"2026-01-01T00:00:00.002Z","object_id":2,"main_object_id":null,"account":"1002","uid":null,"receiver_id":1,"state":"lost"}\n',
    );
    c.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('several clients each receive every change in order', async () => {
  const h = await startOutput();
  try {
    const clients = await Promise.all([client(h.output.port()), client(h.output.port()), client(h.output.port())]);
    await waitFor(() => h.output.stats.clients === 3 && clients.every((c) => c.frames.length === 1));
    for (let i = 1; i <= 50; i++) h.output.publish(change(i));
    await waitFor(() => clients.every((c) => c.frames.length === 51));
    for (const c of clients)
      assert.equal(
        c.frames.slice(1).map((f) => f?.object_id),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    assert.equal(h.health.get('status-output')?.metrics.clients, 3);
    for (const c of clients) c.socket.destroy();
    await waitFor(() => h.output.stats.clients === 0);
    assert.is(h.output.listening, false);
  } finally {
    await h.stop();
  }
});

test('with encryption on, every frame on the wire is hex and decodes with the key', async () => {
  const h = await startOutput({ encryptionKey: KEY });
  try {
    const c = await client(h.output.port(), KEY);
    await waitFor(() => c.frames.length === 2);
    h.output.publish(change(5, 'restored'));
    await waitFor(() => c.frames.length === 3);
    const wire = Buffer.concat(c.bytes).toString('latin1');
    assert.match(wire, /^([0-9A-F]+\n){3}$/);
    assert.equal(
      c.frames.map((f) => f?.type),
      ['challenge', 'hello', 'restored'],
    );
    assert.is(c.frames[2]?.object_id, 5);
    c.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('a client that stops reading is dropped at its bound; publish never waits and a fast client gets everything', async () => {
  const h = await startOutput({ maxQueueBytes: 16 * 1024 });
  try {
    const fast = await client(h.output.port());
    const slow = await client(h.output.port(), null, false);
    await waitFor(() => h.output.stats.clients === 2);
    let published = 0;
    let slowestPublishMs = 0;
    // Bounded: the kernel buffers of a loopback socket hold a few MB; 400k frames are far more.
    // The slow client never reads in this loop: a publish that waited for it would never return.
    for (let round = 0; round < 4000 && h.output.stats.droppedClients === 0; round++) {
      for (let i = 0; i < 100; i++) {
        const started = performance.now();
        assert.is(h.output.publish(change(++published)), undefined, 'publish returns at once, nothing to await');
        slowestPublishMs = Math.max(slowestPublishMs, performance.now() - started);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.is(h.output.stats.droppedClients, 1);
    assert.is(h.output.stats.clients, 1);
    // The slow client, once it reads again, finds its connection closed.
    slow.socket.resume();
    await waitFor(() => slow.closed, 5000);
    assert.equal(h.health.get('status-output')?.metrics.dropped_clients, 1);
    // A publish encodes one frame and hands it over (microseconds); the bound is generous so that a
    // machine loaded far beyond its cores cannot fail it, while work per publish that grew with a
    // client's backlog would.
    assert.ok(slowestPublishMs < 1000, `a publish took ${slowestPublishMs.toFixed(1)} ms`);
    await waitFor(() => fast.frames.length === published + 1, 10_000);
    assert.ok(
      fast.frames.slice(1).every((f, i) => f?.object_id === i + 1),
      'fast client got every frame in order',
    );
    assert.is(fast.closed, false);
    fast.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('connections beyond maxClients are refused and counted', async () => {
  const h = await startOutput({ maxClients: 2 });
  try {
    const a = await client(h.output.port());
    const b = await client(h.output.port());
    await waitFor(() => h.output.stats.clients === 2);
    const c = await client(h.output.port());
    await waitFor(() => c.closed);
    assert.is(h.output.stats.refusedClients, 1);
    assert.equal(c.frames, []);
    a.socket.destroy();
    b.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('unencrypted, the feed serves the box itself only: another host is refused, counted and gets nothing', async () => {
  // 127.0.0.2 stands for a host on the LAN (tests stay on loopback); 127.0.0.1 is the box.
  const isLocal = (address: string | undefined) => address === LOOPBACK || address === `::ffff:${LOOPBACK}`;
  const h = await startOutput({ isLocal });
  const keyed = await startOutput({ isLocal, encryptionKey: 'k'.repeat(16) });
  try {
    const lan = connect({ port: h.output.port(), host: LOOPBACK, localAddress: '127.0.0.2' });
    const got: Buffer[] = [];
    lan.on('data', (b: Buffer) => got.push(b));
    lan.on('error', () => undefined);
    await new Promise<void>((resolve) => lan.once('close', () => resolve()));
    assert.equal(got, []);
    assert.is(h.output.stats.refusedPlainClients, 1);
    const box = await client(h.output.port());
    await waitFor(() => box.frames.length > 0);
    box.socket.destroy();
    // Encrypted, a LAN host is served: it gets the challenge, and the feed once it proves the key.
    const lanKeyed = connect({ port: keyed.output.port(), host: LOOPBACK, localAddress: '127.0.0.2' });
    const bytes: Buffer[] = [];
    lanKeyed.on('data', (b: Buffer) => bytes.push(b));
    await waitFor(() => bytes.length > 0);
    assert.is(keyed.output.stats.refusedPlainClients, 0);
    lanKeyed.destroy();
  } finally {
    await h.stop();
    await keyed.stop();
  }
});

test('encrypted: a client without the key gets one challenge frame, no object, and is closed when its proof does not come', async () => {
  const objects = Array.from({ length: 50 }, (_, i) => change(i + 1, 'state').object);
  const h = await startOutput({ encryptionKey: KEY, objects: pages(objects), proofMs: 300 });
  try {
    const silent = await client(h.output.port(), KEY, true, null);
    const wrong = await client(h.output.port(), KEY, true, 'Another-16-chars');
    await waitFor(() => silent.closed && wrong.closed, 3000);
    for (const c of [silent, wrong])
      assert.equal(
        c.frames.map((f) => f?.type),
        ['challenge'],
        'nothing but the challenge',
      );
    assert.is(h.output.stats.unprovenClients, 2);
    assert.is(h.admission.counts.get('status-output', 'unproven'), 2);
    h.output.publish(change(9, 'lost'));
    const good = await client(h.output.port(), KEY);
    await waitFor(() => good.frames.length === 52);
    assert.equal(good.frames[1], {
      v: 1,
      type: 'hello',
      at: '2026-01-01T00:00:00.000Z',
      instance: 'test-site',
      objects: 50,
    });
    good.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('a snapshot of 10,000 objects goes out in slices: eight encrypted clients connecting at once never stall the event loop', async () => {
  const objects = Array.from({ length: 10_000 }, (_, i) => change(i + 1, 'state').object);
  const h = await startOutput({ encryptionKey: KEY, objects: pages(objects) });
  // A turn of the event loop is measured in CPU time of this process, not wall time: on a machine
  // loaded beyond its cores the process waits for a core between turns, which no code of the output
  // can change; the CPU one turn spends is what a snapshot at once would make long.
  const cpuMs = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  let longest = 0;
  let last = cpuMs();
  const probe = setInterval(() => {
    const now = cpuMs();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    // The clients count lines only: decrypting 80,000 frames here would be this process's own stall.
    const clients = await Promise.all(Array.from({ length: 8 }, () => client(h.output.port(), KEY, true, KEY, true)));
    await waitFor(() => clients.every((c) => c.lines === 10_002), 150_000);
    // One slice is 200 frames: about 18 ms of CPU for the longest turn on the development VM; the
    // whole snapshot in one turn (SNAPSHOT_PAGE set to 20,000) takes about 220 ms of CPU there.
    assert.ok(longest < 100, `the longest turn of the event loop took ${longest.toFixed(0)} ms of CPU`);
    for (const c of clients) c.socket.destroy();
  } finally {
    clearInterval(probe);
    await h.stop();
  }
});

test('connects per source are limited: beyond the allowance a client is closed at once and counted', async () => {
  const h = await startOutput({}, { status_output_connects_per_source_per_min: 3 });
  try {
    const served = [await client(h.output.port()), await client(h.output.port()), await client(h.output.port())];
    await waitFor(() => h.output.stats.clients === 3);
    const fourth = await client(h.output.port());
    await waitFor(() => fourth.closed);
    assert.equal(fourth.frames, []);
    assert.is(h.admission.counts.get('status-output', 'source-rate'), 1);
    for (const c of served) c.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('heartbeat frames arrive at the configured interval', async () => {
  const h = await startOutput({ heartbeatMs: 30 });
  try {
    const c = await client(h.output.port());
    await waitFor(() => c.frames.filter((f) => f?.type === 'heartbeat').length >= 2, 3000);
    c.socket.destroy();
  } finally {
    await h.stop();
  }
});

test('health is ok while listening and removed at stop; stop disconnects clients', async () => {
  const h = await startOutput();
  const c = await client(h.output.port());
  await waitFor(() => h.output.stats.clients === 1);
  assert.is(h.health.get('status-output')?.state, 'ok');
  assert.is(h.health.get('status-output')?.kind, 'output');
  await h.stop();
  await waitFor(() => c.closed);
  assert.is(h.health.get('status-output'), undefined);
  h.output.publish(change(1)); // after stop: a no-op, not a throw
});

test('a port already in use fails start with SERVICE_FAILED and health failed', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, LOOPBACK, resolve));
  const port = (blocker.address() as { port: number }).port;
  const clock = new ManualClock(AT);
  const health = new HealthRegistry(() => clock.now());
  const admission = admissionFor(clock);
  const output = new StatusOutput(
    { port, host: LOOPBACK, encryptionKey: null, instanceName: 'x', objects: pages([]) },
    { health, logger: silentLogger, clock, admission },
  );
  try {
    await output.start();
    assert.unreachable('started on a busy port');
  } catch (err) {
    assert.ok(isVigilError(err, 'SERVICE_FAILED'));
    assert.is(health.get('status-output')?.state, 'failed');
  } finally {
    await output.stop();
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
  await sleep(1);
});

test.run();
