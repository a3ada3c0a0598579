/**
 * Journal -> webhook output -> a real HTTP(S) receiver on 127.0.0.1 that checks every signature: the body and
 * headers exactly, in order and nothing lost through 5xx and refusals, failed / restored, batches with filtered
 * events between, a restart mid-backlog resuming from the cursor, TLS verification with a private CA, timeouts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WebhookSettings } from '../../src/settings/schema-outputs.js';
import { signWebhook } from '../../src/outputs/webhook-signature.js';
import { makeTlsFiles, type TlsFiles } from '../helpers/tls-files.js';
import { waitFor } from '../helpers/net.js';
import { readFileSync } from 'node:fs';
import { cidEvent, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';
import { WebhookPeer } from './helpers/webhook-peer.js';

const SECRET = 'webhook-secret-0123456789';

let fx: OutputFixture;
let peer: WebhookPeer | null = null;
let tls: TlsFiles | null = null;

async function startPeer(options: Partial<ConstructorParameters<typeof WebhookPeer>[0]> = {}): Promise<WebhookPeer> {
  peer = new WebhookPeer({ secret: SECRET, now: () => fx.clock.now(), ...options });
  await peer.listen();
  return peer;
}

function webhookOutput(url: string, block: Partial<WebhookSettings> = {}, extra: Record<string, unknown> = {}) {
  const webhook: WebhookSettings = {
    secret: SECRET,
    timeout_ms: 2000,
    batch_size: 1,
    retries: 2,
    retry_min_ms: 100,
    retry_max_ms: 1000,
    ca_file: '',
    ...block,
  };
  return fx.output({ type: 4, protocol: 'JSON', identificator: url, oid: 0x1f, webhook, ...extra } as never, {
    instanceName: 'Site A',
  });
}

const url = (p: WebhookPeer, path = '/hook?k=1'): string => `http://127.0.0.1:${p.port}${path}`;
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test.before.each(async () => {
  fx = await startOutputFixture();
});

test.after.each(async () => {
  await fx.cleanup();
  await peer?.close();
  peer = null;
  tls?.remove();
  tls = null;
});

test('one POST per event: the documented body, X-Vigil-Event-Id and a signature the receiver verifies', async () => {
  const p = await startPeer();
  const at = Date.UTC(2026, 10, 26, 15, 0, 0, 250);
  const object = await fx.store.write.objects.upsertMain({
    uid: 'A1B2C3',
    account: '1234',
    receiverId: 1,
    receiverKind: 'tcp',
    at,
  });
  const out = webhookOutput(url(p));
  await out.start();
  const [id] = await fx.append([
    cidEvent({
      receivedAt: at,
      objectId: object.id,
      deviceTime: at - 1000,
      deviceTimeText: '15:00:59,11-26-2026',
      text: 'Fire zone 15',
      raw: Buffer.from([0x0a, 0x22, 0x41, 0xff]),
    }),
  ]);
  await waitFor(() => fx.store.cursors.get(1) === id, 3000);
  assert.is(p.posts.length, 1);
  const post = p.posts[0]!;
  assert.is(post.verdict, 'ok');
  assert.is(post.headers['x-vigil-event-id'], String(id));
  assert.is(post.headers['content-type'], 'application/json');
  const timestamp = Number(post.headers['x-vigil-timestamp']);
  assert.is(post.headers['x-vigil-signature'], signWebhook(SECRET, timestamp, post.raw));
  assert.is(timestamp, Math.floor(fx.clock.now() / 1000));
  assert.equal(JSON.parse(post.raw.toString('utf8')), {
    version: 1,
    gateway: 'Site A',
    events: [
      {
        id,
        account: '1234',
        device_account: '1234',
        protocol: 'ADM-CID',
        event_class: 'alarm',
        qualifier: 'E',
        code: '130',
        group: '01',
        zone: '015',
        text: 'Fire zone 15',
        receiver: { id: 1, kind: 'tcp' },
        object: { id: object.id, uid: 'A1B2C3' },
        remote_address: '127.0.0.1:40000',
        received_at: '2026-11-26T15:00:00.250Z',
        event_time: '2026-11-26T14:59:59.250Z',
        event_time_text: '15:00:59,11-26-2026',
        raw_base64: 'CiJB/w==',
      },
    ],
  });
  await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 1, 1000);
  assert.is(fx.health.get('out:1')?.state, 'ok');
  assert.is(fx.health.get('out:1')?.metrics.connected, true);
});

test('a gateway event goes out under the output oid; no object and no event time are null', async () => {
  const p = await startPeer();
  await webhookOutput(url(p)).start();
  const [id] = await fx.append([
    cidEvent({
      receiverId: null,
      receiverKind: null,
      remoteAddress: null,
      account: '',
      eventClass: 'internal',
      code: '354',
    }),
  ]);
  await waitFor(() => fx.store.cursors.get(1) === id, 3000);
  const event = p.posts[0]!.body.events[0]!;
  assert.equal(
    [event.account, event.receiver, event.object, event.event_time, event.event_time_text],
    ['001F', null, null, null, null],
  );
});

test('answers 500 for a while: nothing lost, order kept, failed after the retries and restored by the first 2xx', async () => {
  const p = await startPeer({ answer: ({ index }) => (index >= 3 && index < 8 ? 500 : 200) });
  await webhookOutput(url(p)).start();
  const ids = await fx.append(range(1, 20).map((z) => cidEvent({ zoneNo: String(z) })));
  await waitFor(() => fx.store.cursors.get(1) === ids.at(-1), 10_000);
  assert.equal(p.deliveredIds, ids);
  // The refused POSTs were all the same event, the head: nothing behind it went out meanwhile.
  assert.equal(
    p.posts.slice(3, 9).map((x) => x.body.events[0]!.id),
    Array(6).fill(ids[3]),
  );
  assert.equal(fx.states, [
    { output: 1, state: 'failed' },
    { output: 1, state: 'restored' },
  ]);
  const waits = p.posts
    .slice(3, 9)
    .map((x, i, all) => (i === 0 ? 0 : x.at - all[i - 1]!.at))
    .slice(1);
  // Backoff 100, 200, 400, 800, 1000 (capped) ms, within scheduling noise.
  for (const [i, w] of waits.entries()) assert.ok(w >= [100, 200, 400, 800, 1000][i]! - 20, `wait ${i}: ${w}`);
  await waitFor(() => fx.health.get('out:1')?.metrics.retries === 5, 1000);
});

test('one 503 makes the output degraded with the reason; the next 2xx makes it ok again (not failed)', async () => {
  const p = await startPeer({ answer: ({ index }) => (index === 1 ? 503 : 200) });
  await webhookOutput(url(p)).start();
  const first = await fx.append([cidEvent({ zoneNo: '1' })]);
  await waitFor(() => fx.store.cursors.get(1) === first[0], 5000);
  const degraded = new Promise<string | null>((resolve) => {
    const poll = setInterval(() => {
      const h = fx.health.get('out:1');
      if (h?.state === 'degraded') {
        clearInterval(poll);
        resolve(h.detail);
      }
    }, 5);
  });
  const ids = await fx.append([cidEvent({ zoneNo: '2' })]);
  assert.match((await degraded) ?? '', /HTTP 503; retrying/);
  await waitFor(() => fx.store.cursors.get(1) === ids[0], 5000);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 2000);
  assert.equal(fx.states, [], 'a single transient answer is no output_failed');
  assert.equal(p.deliveredIds, [...first, ...ids]);
});

test('a 4xx refusal fails the output at once with the status code and never skips the event', async () => {
  let status = 404;
  const p = await startPeer({ answer: () => status });
  await webhookOutput(url(p), { retries: 10 }).start();
  const ids = await fx.append([cidEvent(), cidEvent({ zoneNo: '2' })]);
  await waitFor(() => fx.states.length === 1, 3000);
  const health = fx.health.get('out:1')!;
  assert.is(health.state, 'failed');
  assert.is(health.detail, `webhook http://127.0.0.1:${p.port} refused the events (HTTP 404); retrying`);
  await waitFor(() => p.posts.length >= 3, 3000);
  assert.ok(p.posts.every((x) => x.body.events[0]!.id === ids[0]));
  assert.is(fx.store.cursors.get(1), ids[0]! - 1);
  status = 200;
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 3000);
  assert.equal(p.deliveredIds, ids);
  assert.equal(fx.states, [
    { output: 1, state: 'failed' },
    { output: 1, state: 'restored' },
  ]);
});

test('a wrong secret is a 401 from the receiver: the output fails and delivers nothing', async () => {
  const p = await startPeer();
  const out = fx.output(
    {
      type: 4,
      protocol: 'JSON',
      identificator: url(p),
      webhook: {
        secret: 'another-secret-0123456',
        timeout_ms: 2000,
        batch_size: 1,
        retries: 3,
        retry_min_ms: 100,
        retry_max_ms: 1000,
        ca_file: '',
      },
    } as never,
    { instanceName: 'Site A' },
  );
  await out.start();
  await fx.append([cidEvent()]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.ok(p.posts.every((x) => x.verdict === 'bad-signature'));
  assert.match(fx.health.get('out:1')!.detail ?? '', 'HTTP 401');
});

test('batches: up to batch_size events per POST, in order, filtered events between are passed, not sent', async () => {
  const p = await startPeer();
  await webhookOutput(url(p), { batch_size: 3 }, { filters: { receivers: [], event_classes: ['alarm'] } }).start();
  const classes = ['alarm', 'restore', 'alarm', 'alarm', 'restore', 'alarm', 'alarm'] as const;
  const ids = await fx.append(classes.map((eventClass) => cidEvent({ eventClass })));
  await waitFor(() => fx.store.cursors.get(1) === ids[6], 3000);
  const alarms = ids.filter((_, i) => classes[i] === 'alarm');
  assert.equal(
    p.posts.map((x) => x.body.events.map((e) => e.id)),
    [alarms.slice(0, 3), alarms.slice(3)],
  );
  assert.equal(
    p.posts.map((x) => x.headers['x-vigil-event-id']),
    [alarms.slice(0, 3).join(','), alarms.slice(3).join(',')],
  );
});

test('a restart mid-backlog resumes from the cursor: every event once, in order', async () => {
  // The receiver takes exactly 10 POSTs, then refuses: decided per request, so a fast output cannot
  // deliver the whole backlog before the test turns the receiver off.
  let served = 0;
  let limit = 10;
  const p = await startPeer({ answer: () => (served++ < limit ? 200 : 503) });
  const first = webhookOutput(url(p), { retries: 10 });
  await first.start();
  const ids = await fx.append(range(1, 30).map((z) => cidEvent({ zoneNo: String(z) })));
  await waitFor(() => p.posts.some((x) => x.status === 503), 5000);
  await first.stop();
  const delivered = p.deliveredIds.length;
  assert.is(delivered, 10);
  assert.is(fx.store.cursors.get(1), ids[delivered - 1]);
  limit = Number.POSITIVE_INFINITY;
  await webhookOutput(url(p)).start();
  await waitFor(() => fx.store.cursors.get(1) === ids.at(-1), 10_000);
  assert.equal(p.deliveredIds, ids);
});

test('https: a private CA in ca_file is trusted; without it the certificate is refused and nothing is sent', async () => {
  tls = makeTlsFiles();
  const p = await startPeer({
    tls: { cert: readFileSync(tls.serverCert, 'utf8'), key: readFileSync(tls.serverKey, 'utf8') },
  });
  const httpsUrl = `https://127.0.0.1:${p.port}/hook`;
  await webhookOutput(httpsUrl, { retries: 0 }).start();
  const [id] = await fx.append([cidEvent()]);
  await waitFor(() => fx.states.length === 1, 5000);
  assert.match(fx.health.get('out:1')!.detail ?? '', /certificate/i);
  assert.is(p.posts.length, 0);
  await fx.cleanup();
  fx = await startOutputFixture();
  await webhookOutput(httpsUrl, { ca_file: tls.caCert }).start();
  const [next] = await fx.append([cidEvent()]);
  await waitFor(() => fx.store.cursors.get(1) === next, 5000);
  assert.equal(p.deliveredIds, [next]);
  assert.ok(id !== undefined);
});

test('a CA file gone since it was saved: the output reports failed with the reason and does not run', async () => {
  const p = await startPeer();
  const out = webhookOutput(`https://127.0.0.1:${p.port}/`, { ca_file: '/nonexistent/vigil-ca.pem' });
  let error: unknown = null;
  await out.start().catch((err: unknown) => (error = err));
  assert.ok(error instanceof Error);
  const health = fx.health.get('out:1')!;
  assert.is(health.state, 'failed');
  assert.is(health.detail, 'cannot start: webhook.ca_file /nonexistent/vigil-ca.pem: file does not exist');
  await fx.append([cidEvent()]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(p.posts.length, 0);
});

test('a receiver that never answers: timeout, failed, and delivered once it answers', async () => {
  let hang = true;
  const p = await startPeer({ answer: () => (hang ? 'hang' : 200) });
  await webhookOutput(url(p), { timeout_ms: 1000, retries: 0 }).start();
  const [id] = await fx.append([cidEvent()]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.is(fx.health.get('out:1')!.detail, `webhook http://127.0.0.1:${p.port}: no answer within 1000 ms; retrying`);
  hang = false;
  await waitFor(() => fx.store.cursors.get(1) === id, 5000);
  assert.equal(p.deliveredIds, [id]);
});

test('nothing listening: connection refused is retried, and the events go out when the receiver appears', async () => {
  const p = await startPeer();
  const port = p.port;
  await p.close();
  peer = null;
  await webhookOutput(`http://127.0.0.1:${port}/`, { retries: 1 }).start();
  const ids = await fx.append([cidEvent(), cidEvent({ zoneNo: '2' })]);
  await waitFor(() => fx.states.length === 1, 3000);
  assert.match(fx.health.get('out:1')!.detail ?? '', 'ECONNREFUSED');
  assert.is(fx.health.get('out:1')!.metrics.connected, false);
  const late = new WebhookPeer({ secret: SECRET, now: () => fx.clock.now() });
  peer = late;
  await late.listen(port);
  await waitFor(() => fx.store.cursors.get(1) === ids[1], 5000);
  assert.equal(late.deliveredIds, ids);
});

test.run();
