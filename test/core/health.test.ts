import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { TypedBus } from '../../src/core/bus.js';
import { createLogger } from '../../src/core/logger.js';

test('a component that has not reached ok is reported as failing', () => {
  const health = new HealthRegistry(() => 1000);
  health.report('rx:tcp:1', 'receiver', 'starting');
  health.report('store', 'store', 'ok');
  assert.equal(
    health.failing().map((c) => c.name),
    ['rx:tcp:1'],
  );
  health.report('rx:tcp:1', 'receiver', 'ok');
  assert.equal(health.failing(), []);
});

test('listeners see state changes only, and a throwing listener does not break the reporter', () => {
  const health = new HealthRegistry(() => 1000);
  const seen: string[] = [];
  health.onChange(() => {
    throw new Error('boom');
  });
  health.onChange((c) => seen.push(`${c.name}=${c.state}`));
  health.report('out:1', 'output', 'ok');
  health.report('out:1', 'output', 'ok');
  health.setMetrics('out:1', { backlog: 3 });
  health.report('out:1', 'output', 'failed', 'no ACK');
  assert.equal(seen, ['out:1=ok', 'out:1=failed']);
  assert.equal(health.get('out:1')?.metrics, { backlog: 3 });
});

test('a throwing bus listener is logged and the others still run', () => {
  const lines: string[] = [];
  const bus = new TypedBus<{ ping: number }>(createLogger('bus', (l) => lines.push(l)));
  const got: number[] = [];
  bus.on('ping', () => {
    throw new Error('bad consumer');
  });
  bus.on('ping', (n) => got.push(n));
  bus.emit('ping', 7);
  assert.equal(got, [7]);
  assert.ok(lines[0]?.includes('listener failed'));
});

test.run();
