/**
 * GET /api/events/stream in the whole gateway: a simulated panel's DC-09 events, ACKed by a real
 * TCP receiver and journaled by the ingest, reach an SSE client on the gateway's own HTTP listener
 * in journal order; the client resumes with Last-Event-ID after more events and gets exactly those.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { Gateway } from '../../src/main.js';
import { resolveSimOptions, Simulator } from '../../src/sim/index.js';
import { LOOPBACK, freePort } from '../helpers/net.js';
import { openSse } from '../helpers/sse-client.js';
import { tempDir } from '../helpers/temp-dir.js';

async function panel(port: number, events: number, accountBase: string): Promise<void> {
  const sim = new Simulator(
    resolveSimOptions({
      port,
      devices: 1,
      accountBase,
      token: 'ADM-CID',
      saturate: true,
      maxEvents: events,
      durationMs: 5000,
      drainMs: 500,
      link: { hello: false },
    }),
    { logger: silentLogger },
  );
  const summary = await sim.run();
  assert.is(summary.events_acked, events, JSON.stringify(summary));
}

test('panel events reach the stream live through the ingest, and a resume gets exactly the missed ones', async () => {
  const dir = tempDir();
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: 0,
    host: LOOPBACK,
    logger: silentLogger,
    announce: () => undefined,
  });
  try {
    await gateway.start();
    const base = `http://${LOOPBACK}:${gateway.apiPorts().http}`;
    const rxPort = await freePort();
    const result = await gateway.settings.update({
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
    });
    assert.ok(result.ok, result.ok ? '' : result.errors.join('\n'));
    await gateway.services.restart();
    const [login, password] = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8').trim().split('\n') as [
      string,
      string,
    ];
    const res = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login, password }),
    });
    const { token } = (await res.json()) as { token: string };
    const auth = { Authorization: `Bearer ${token}` };

    const live = await openSse(`${base}/api/events/stream?receiver=1`, auth);
    assert.is(live.response.status, 200);
    assert.is((await live.collect((m) => m.event === 'ready', 3000)).at(-1)?.event, 'ready');
    await panel(rxPort, 4, '3000');
    const first = (await live.collect((_m, all) => all.length >= 4, 5000)).filter((m) => m.event === 'message');
    assert.is(first.length, 4);
    assert.ok(first.every((m) => JSON.parse(m.data).account === '3000' && JSON.parse(m.data).receiver_id === 1));
    const firstIds = first.map((m) => Number(m.id));
    assert.equal(
      firstIds,
      [...firstIds].sort((a, b) => a - b),
    );
    await live.close();

    await panel(rxPort, 3, '3100');
    const resumed = await openSse(`${base}/api/events/stream?receiver=1`, {
      ...auth,
      'Last-Event-ID': live.parser.lastEventId,
    });
    const missed = (
      await resumed.collect((_m, all) => all.filter((m) => m.event === 'message').length >= 3, 5000)
    ).filter((m) => m.event === 'message');
    assert.equal(
      missed.map((m) => JSON.parse(m.data).account),
      ['3100', '3100', '3100'],
    );
    // no gap, no duplicate: the two streams together are the listing of receiver 1, oldest first
    const listing = (await (await fetch(`${base}/api/events?receiver=1`, { headers: auth })).json()) as {
      items: Array<{ id: number }>;
    };
    assert.equal([...firstIds, ...missed.map((m) => Number(m.id))], listing.items.map((e) => e.id).reverse());
    assert.equal(await resumed.collect((m) => m.event === 'message', 500), []);
    await resumed.close();
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
