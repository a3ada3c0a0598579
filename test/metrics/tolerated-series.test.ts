/**
 * vigil_frames_tolerated_total (docs/metrics.md): the receivers' quirk counts from the health registry
 * (ReceiverCounters, docs/dc09.md "Tolerances") become a counter by receiver and quirk that only grows.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';
import { ReceiverCounters } from '../../src/receivers/receiver-counters.js';

function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

test('quirk counts of each receiver are exported by quirk, and keep growing across a receiver restart', async () => {
  const health = new HealthRegistry(() => 0);
  const metrics = new GatewayMetrics({
    health,
    objects: { countByState: () => ({}) },
    dbPath: '/nonexistent/vigil.db',
    now: () => 0,
  });
  const counters = new ReceiverCounters();
  health.report('rx:tcp:7', 'receiver', 'ok', null);
  counters.countQuirks(['binary-crc', 'binary-crc', 'empty-line']);
  counters.publish(health, 'rx:tcp:7', '127.0.0.1:1');
  let text = (await metrics.render()).body;
  assert.is(sample(text, 'vigil_frames_tolerated_total{receiver="7",quirk="binary_crc"}'), 2);
  assert.is(sample(text, 'vigil_frames_tolerated_total{receiver="7",quirk="empty_line"}'), 1);
  assert.is(sample(text, 'vigil_frames_tolerated_total{receiver="7",quirk="cr_counted"}'), null);
  // A restarted receiver starts its figures at 0 again: the counter adds what came since.
  const fresh = new ReceiverCounters();
  fresh.countQuirks(['binary-crc']);
  fresh.publish(health, 'rx:tcp:7', '127.0.0.1:1');
  text = (await metrics.render()).body;
  assert.is(sample(text, 'vigil_frames_tolerated_total{receiver="7",quirk="binary_crc"}'), 3);
});

test('receiver refusals show in the first scrape after they happen, not one scrape late', async () => {
  const health = new HealthRegistry(() => 0);
  const metrics = new GatewayMetrics({
    health,
    objects: { countByState: () => ({}) },
    dbPath: '/nonexistent/vigil.db',
    now: () => 0,
  });
  const counters = new ReceiverCounters();
  health.report('rx:udp:3', 'receiver', 'ok', null);
  counters.rejected = 4;
  counters.publish(health, 'rx:udp:3', '127.0.0.1:1');
  const text = (await metrics.render()).body;
  assert.is(sample(text, 'vigil_frames_rejected_total{receiver="3",reason="malformed"}'), 4);
});

test.run();
