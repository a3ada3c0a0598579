import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { HealthEventBridge } from '../../src/internal-events/health-events.js';
import type { RaiseOptions } from '../../src/internal-events/recorder.js';
import type { InternalEventType } from '../../src/settings/schema.js';

function setup() {
  const health = new HealthRegistry(() => 0);
  const raised: string[] = [];
  let storeRestored = 0;
  const bridge = new HealthEventBridge({
    health,
    raise: async (type: InternalEventType, options?: RaiseOptions) => {
      raised.push(`${type}: ${options?.detail ?? ''}`);
      return 1;
    },
    logger: silentLogger,
    onStoreRestored: () => storeRestored++,
  });
  return { health, raised, bridge, restoredCalls: () => storeRestored };
}

test('a receiver that fails raises receiver_failed once, and receiver_restored when it is ok again', async () => {
  const { health, raised, bridge } = setup();
  await bridge.start();
  health.report('rx:tcp:1', 'receiver', 'starting');
  health.report('rx:tcp:1', 'receiver', 'ok');
  health.report('rx:tcp:1', 'receiver', 'failed', 'EADDRINUSE');
  health.report('rx:tcp:1', 'receiver', 'failed', 'still EADDRINUSE');
  health.report('rx:tcp:1', 'receiver', 'ok');
  assert.equal(raised, ['receiver_failed: rx:tcp:1: EADDRINUSE', 'receiver_restored: rx:tcp:1']);
  await bridge.stop();
});

test('storage low on space raises store_trouble once with the figures, and store_restored when it is ok again', async () => {
  const { health, raised, bridge, restoredCalls } = setup();
  await bridge.start();
  health.report('storage', 'storage', 'ok');
  health.report(
    'storage',
    'storage',
    'degraded',
    'low on space: 700.0 MiB free of 14800.0 MiB, trouble below 740.0 MiB',
  );
  health.report('storage', 'storage', 'degraded', 'free space unreadable: ENOENT');
  health.report('storage', 'storage', 'ok');
  assert.equal(raised, [
    'store_trouble: storage: low on space: 700.0 MiB free of 14800.0 MiB, trouble below 740.0 MiB',
    'store_restored: storage',
  ]);
  assert.is(restoredCalls(), 0, 'the recorder retries after the store itself recovers, not after space came back');
  await bridge.stop();
});

test('a receiver that degrades (a silent COM line) raises receiver_trouble once, a failure after it still counts, ok restores', async () => {
  const { health, raised, bridge } = setup();
  await bridge.start();
  health.report('rx:com:3', 'receiver', 'ok');
  health.report('rx:com:3', 'receiver', 'degraded', 'no heartbeat for 76 s');
  health.report('rx:com:3', 'receiver', 'degraded', 'no heartbeat for 90 s');
  health.report('rx:com:3', 'receiver', 'failed', 'port gone');
  health.report('rx:com:3', 'receiver', 'ok');
  health.report('out:1', 'output', 'degraded', 'disconnected');
  assert.equal(raised, [
    'receiver_trouble: rx:com:3: no heartbeat for 76 s',
    'receiver_failed: rx:com:3: port gone',
    'receiver_restored: rx:com:3',
  ]);
  await bridge.stop();
});

test('a restart of the services (stopped, starting, ok) is neither a failure nor a recovery', async () => {
  const { health, raised, bridge } = setup();
  await bridge.start();
  health.report('out:1', 'output', 'ok');
  health.report('out:1', 'output', 'stopped');
  health.report('out:1', 'output', 'starting');
  health.report('out:1', 'output', 'degraded', 'disconnected: ECONNREFUSED');
  health.report('out:1', 'output', 'ok');
  assert.equal(raised, []);
});

test('a failure stays open across a restart until the component reports ok', async () => {
  const { health, raised, bridge } = setup();
  await bridge.start();
  health.report('out:2', 'output', 'failed', 'no ACK after 3 retries');
  health.report('out:2', 'output', 'stopped');
  health.report('out:2', 'output', 'starting');
  health.report('out:2', 'output', 'degraded', 'connecting');
  assert.equal(bridge.openFailures(), ['out:2']);
  health.report('out:2', 'output', 'ok');
  assert.equal(raised, ['output_failed: out:2: no ACK after 3 retries', 'output_restored: out:2']);
});

test('store trouble and restore; the recorder is asked to retry what it holds', async () => {
  const { health, raised, bridge, restoredCalls } = setup();
  await bridge.start();
  health.report('store', 'store', 'ok');
  health.report('store', 'store', 'failed', 'journal write failed: disk I/O error');
  health.report('store', 'store', 'ok');
  assert.equal(raised, ['store_trouble: store: journal write failed: disk I/O error', 'store_restored: store']);
  assert.is(restoredCalls(), 1);
});

test('a component already failed when the bridge starts gets its event; other kinds are ignored', async () => {
  const { health, raised, bridge } = setup();
  health.report('rx:udp:3', 'receiver', 'failed', 'EACCES');
  health.report('api:https', 'api', 'failed', 'no certificate');
  await bridge.start();
  assert.equal(raised, ['receiver_failed: rx:udp:3: EACCES']);
  await bridge.stop();
  health.report('rx:udp:3', 'receiver', 'ok');
  assert.equal(raised.length, 1, 'nothing after stop');
});

test.run();
