/**
 * GET /metrics and visible receivers (#28.12, docs/metrics.md "Visible receivers"): a scraper
 * account limited to receiver 1 gets receiver 1's series and the gateway-wide ones, nothing
 * labelled with receiver 2 or one of its components; a caller who sees every receiver gets all.
 * The real API app, store, tokens and prom-client registry; the figures come through the health
 * registry and eventStored() exactly as the receivers and the ingest feed them.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { registerMetrics } from '../../src/api/routes/metrics.js';
import { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';
import { OPERATOR, call, createHarness, type Harness } from '../api/harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
  const metrics = new GatewayMetrics({
    health: h.health,
    objects: h.store.objects,
    dbPath: h.dbPath,
    now: () => h.clock.now(),
  });
  registerMetrics(h.app, h.deps, metrics);
  h.health.report('rx:tcp:1', 'receiver', 'ok', null, { connections: 2, rejected: 1 });
  h.health.report('rx:udp:2', 'receiver', 'failed', 'EADDRINUSE', { connections: 5, naks: 3 });
  h.health.report('serial:/dev/ttyUSB2', 'serial-port', 'ok', null, { bytes_in: 900, receiver_id: 2 });
  h.health.report('serial:/dev/ttyUSB1', 'serial-port', 'ok', null, { bytes_in: 100, receiver_id: 1 });
  h.health.report('out:1', 'output', 'ok', null, { backlog: 4, delivered: 9 });
  metrics.eventStored(1, 'SIA-DCS');
  metrics.eventStored(2, 'ADM-CID');
  metrics.eventStored(null, 'INTERNAL');
});
test.after.each(async () => {
  await h.close();
});

/** The second scrape: receiver refusals are counted while the first one collects (docs/metrics.md). */
async function scrape(token: string): Promise<string> {
  await call(h, 'GET', '/metrics', { token });
  const res = await call(h, 'GET', '/metrics', { token });
  assert.is(res.status, 200);
  return res.text();
}

test('a caller who sees every receiver gets every series', async () => {
  const token = (await h.deps.tokens.issueToken({ sub: 'installer', scopes: ['metrics'], minutes: 5 })).token;
  const text = await scrape(token);
  for (const series of [
    'vigil_connected_devices{receiver="2"} 5',
    'vigil_component_up{component="rx:udp:2",kind="receiver",state="failed"} 0',
    'vigil_component_figure{component="serial:/dev/ttyUSB2",kind="serial-port",figure="bytes_in"} 900',
    'vigil_events_received_total{receiver="gateway",protocol="INTERNAL"} 1',
    'vigil_frames_rejected_total{receiver="2",reason="nak"} 3',
  ])
    assert.ok(text.includes(`${series}\n`), series);
});

test('a user limited to receiver 1 gets receiver 1 and the gateway-wide series, nothing of receiver 2', async () => {
  await h.store.write.grants.set(OPERATOR.id, ['device_control', 'metrics'], 'test');
  const text = await scrape(await h.token(OPERATOR.id));
  for (const series of [
    'vigil_connected_devices{receiver="1"} 2',
    'vigil_component_up{component="rx:tcp:1",kind="receiver",state="ok"} 1',
    'vigil_component_up{component="store",kind="store",state="ok"} 1',
    'vigil_component_figure{component="serial:/dev/ttyUSB1",kind="serial-port",figure="bytes_in"} 100',
    'vigil_events_received_total{receiver="1",protocol="SIA-DCS"} 1',
    'vigil_frames_rejected_total{receiver="1",reason="malformed"} 1',
    'vigil_output_backlog{output="out:1"} 4',
  ])
    assert.ok(text.includes(`${series}\n`), series);
  for (const hidden of ['receiver="2"', 'rx:udp:2', 'ttyUSB2', 'receiver="gateway"', 'ADM-CID', 'EADDRINUSE'])
    assert.not.ok(text.includes(hidden), hidden);
  // Every family is still declared, so the exposition stays valid for Prometheus.
  assert.ok(text.includes('# TYPE vigil_connected_devices gauge\n'));
});

test.run();
