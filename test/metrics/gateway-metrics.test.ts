/**
 * GET /metrics on a real gateway: Prometheus text, access only with the `metrics` scope, and the
 * figures move when a simulated device's DC-09 event goes through receiver, journal and ACK.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INSTALLER_SUBJECT, TokenService } from '../../src/auth/tokens.js';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { resolveSimOptions } from '../../src/sim/sim-options.js';
import { Simulator } from '../../src/sim/simulator.js';
import { Store } from '../../src/store/store.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

async function seed(dataDir: string, port: number): Promise<void> {
  const store = new Store(join(dataDir, 'vigil.db'), silentLogger);
  await store.start();
  try {
    const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger: silentLogger });
    await settings.start();
    const result = await settings.update({
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port, bind_address: '127.0.0.1' }] },
    });
    await settings.stop();
    assert.ok(result.ok);
  } finally {
    await store.stop();
  }
}

/** The value of one sample line (`name{labels} value`), or null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

test('GET /metrics: 401 without a token, 403 without the metrics scope, Prometheus text that follows the event path', async () => {
  const dir = tempDir('vigil-metrics-');
  const port = await freePort();
  const http = await freePort();
  await seed(dir.path, port);
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: http,
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
  });
  await gateway.start();
  try {
    const secret = gateway.settings.current().api.api_jwt_secret;
    const tokens = new TokenService({ secret: () => secret, clock: { now: () => Date.now() } });
    const token = async (scopes: string[]) =>
      (await tokens.issueToken({ sub: INSTALLER_SUBJECT, scopes, minutes: 5 })).token;
    const url = `http://127.0.0.1:${http}/metrics`;
    const anonymous = await fetch(url);
    assert.is(anonymous.status, 401);
    assert.is(await anonymous.text(), 'NOT_LOGGED_IN');
    assert.is(
      (await fetch(url, { headers: { authorization: `Bearer ${await token(['events', 'settings'])}` } })).status,
      403,
    );
    assert.is(
      (await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${await token(['metrics'])}` } })).status,
      405,
    );

    const sim = new Simulator(
      resolveSimOptions({
        port,
        devices: 1,
        ratePerDevice: 50,
        maxEvents: 3,
        durationMs: 10_000,
        uidBase: 'ABCD00000001',
        accountBase: '1234',
      }),
    );
    const summary = await sim.run();
    assert.is(summary.events_acked, 3);
    const res = await fetch(url, { headers: { authorization: `Bearer ${await token(['metrics'])}` } });
    assert.is(res.status, 200);
    assert.match(res.headers.get('content-type')!, 'text/plain; version=0.0.4');
    const text = await res.text();
    assert.is(sample(text, 'vigil_events_received_total{receiver="1",protocol="SIA-DCS"}'), 3);
    assert.ok((sample(text, 'vigil_journal_commit_seconds_count') ?? 0) >= 1, 'journal commits observed');
    assert.ok((sample(text, 'vigil_journal_batch_events_sum') ?? 0) >= 3, 'events per commit observed');
    assert.ok((sample(text, 'vigil_ack_latency_seconds_count') ?? 0) >= 1, 'ACK latency observed');
    assert.is(sample(text, 'vigil_objects{state="online"}'), 1);
    assert.is(sample(text, 'vigil_objects{state="lost"}'), 0);
    assert.is(sample(text, 'vigil_component_up{component="rx:tcp:1",kind="receiver",state="ok"}'), 1);
    assert.ok((sample(text, 'vigil_store_size_bytes') ?? 0) > 4096);
    for (const name of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_eventloop_lag_seconds']) {
      assert.ok(sample(text, name) !== null, `${name} present`);
    }
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
