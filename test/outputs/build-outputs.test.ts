/**
 * Outputs from the settings: protocol timings (MLR2 constants, DC-09 from its block), disabled outputs, and a COM
 * output this build cannot run (health failed, not silence).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildOutputs, outputTimings } from '../../src/outputs/index.js';
import { outputSettings, startOutputFixture, type OutputFixture } from './helpers/output-fixture.js';

let fx: OutputFixture;

test.before.each(async () => {
  fx = await startOutputFixture();
});

test.after.each(async () => {
  await fx.cleanup();
});

test('MLR2 and MLR2-DG use the Sur-Gard constants: ACK within 4 s, 3 retries, heartbeat every 30 s', () => {
  for (const protocol of ['MLR2', 'MLR2-DG'] as const) {
    assert.equal(outputTimings(outputSettings({ protocol })), {
      ackTimeoutMs: 4000,
      retries: 3,
      supervisionIntervalMs: 30_000,
      reconnectDelayMs: 1000,
      pollIntervalMs: 1000,
      cursorFlushMs: 500,
      metricsIntervalMs: 1000,
      probeMinMs: 1000,
      probeMaxMs: 8000,
      noClientFailMs: 60_000,
    });
  }
});

test('a TCP server output fails after tcp_server.no_client_failed_s without a client; JSON: ACK 5 s, 3 retries, heartbeat 30 s', () => {
  const timings = outputTimings(
    outputSettings({
      type: 5,
      protocol: 'JSON',
      identificator: '127.0.0.1:1025',
      tcp_server: { allowed_clients: [], no_client_failed_s: 90 },
    }),
  );
  assert.is(timings.noClientFailMs, 90_000);
  assert.is(timings.ackTimeoutMs, 5000);
  assert.is(timings.retries, 3);
  assert.is(timings.supervisionIntervalMs, 30_000);
});

test('SIA-DC09 timings come from sia_dc09; failed-state probes 1 s doubling to 8 s whatever the link-test period', () => {
  const sia = (link: number) =>
    outputSettings({
      protocol: 'SIA-DC09',
      sia_dc09: {
        encryption_enabled: false,
        encryption_key: '',
        link_test_interval_s: link,
        ack_timeout_ms: 2500,
        retries: 5,
      },
    });
  const t = outputTimings(sia(20));
  assert.equal(
    [t.ackTimeoutMs, t.retries, t.supervisionIntervalMs, t.probeMinMs, t.probeMaxMs],
    [2500, 5, 20_000, 1000, 8000],
  );
  const slow = outputTimings(sia(300));
  assert.equal([slow.supervisionIntervalMs, slow.probeMinMs, slow.probeMaxMs], [300_000, 1000, 8000]);
  const off = outputTimings(sia(0));
  assert.equal([off.supervisionIntervalMs, off.probeMinMs, off.probeMaxMs], [0, 1000, 8000]);
});

test('disabled outputs are not built; a COM output without the serial port layer reports failed with the reason and leaves on stop', async () => {
  const deps = { store: fx.store, health: fx.health, logger: fx.logger, clock: fx.clock };
  const services = buildOutputs(
    [
      outputSettings({ id: 1, enabled: false }),
      outputSettings({ id: 2, type: 3, identificator: '/dev/ttyUSB0' }),
      outputSettings({ id: 3, identificator: '127.0.0.1:9' }),
    ],
    deps,
  );
  assert.equal(
    services.map((s) => s.name),
    ['out:2', 'out:3'],
  );
  await services[0]!.start();
  const com = fx.health.get('out:2')!;
  assert.equal(
    [com.kind, com.state, com.detail],
    ['output', 'failed', 'no serial port layer was given to the outputs'],
  );
  await services[0]!.stop();
  assert.is(fx.health.get('out:2'), undefined);
});

test.run();
