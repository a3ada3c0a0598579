/** #28.6, #28.9: the receivers' per-source refusals reach /metrics as `vigil_frames_rejected_total` reasons. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { GatewayMetrics } from '../../src/metrics/gateway-metrics.js';

test('per-source refusals, shedding, first-frame timeouts and withheld UDP replies are counted by reason', async () => {
  const health = new HealthRegistry();
  const metrics = new GatewayMetrics({
    health,
    objects: { countByState: () => ({}) },
    dbPath: '/nonexistent/vigil.db',
    now: () => Date.now(),
  });
  health.report('rx:tcp:1', 'receiver', 'ok', null, {
    refused_source: 3,
    refused_rate: 4,
    refused_budget: 5,
    shed: 6,
    first_frame_timeouts: 7,
  });
  health.report('rx:udp:2', 'receiver', 'ok', null, { rate_limited: 8, replies_withheld: 9 });
  await metrics.render(); // refusals are read while the registry is collected: the second scrape shows them
  const { body } = await metrics.render();
  for (const [receiver, reason, value] of [
    ['1', 'source_connections', 3],
    ['1', 'source_accept_rate', 4],
    ['1', 'connection_budget', 5],
    ['1', 'shed', 6],
    ['1', 'first_frame_timeout', 7],
    ['2', 'source_datagram_rate', 8],
    ['2', 'reply_withheld', 9],
  ] as const) {
    assert.ok(
      body.includes(`vigil_frames_rejected_total{receiver="${receiver}",reason="${reason}"} ${value}`),
      `${reason}\n${body
        .split('\n')
        .filter((l) => l.startsWith('vigil_frames_rejected'))
        .join('\n')}`,
    );
  }
});

test.run();
