import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { GatewayEvents, changedSections } from '../../src/internal-events/gateway-events.js';
import { ReportingLoginThrottle } from '../../src/internal-events/login-events.js';
import { InternalEventRecorder } from '../../src/internal-events/recorder.js';
import { DEFAULT_INTERNAL_EVENTS } from '../../src/settings/internal-events.js';
import type { NewEvent } from '../../src/core/event-row.js';

function recorder() {
  const written: NewEvent[] = [];
  const rec = new InternalEventRecorder({
    journal: {
      append: async (batch) => (written.push(...batch), batch.map((_, i) => written.length - batch.length + i + 1)),
    },
    entries: () => DEFAULT_INTERNAL_EVENTS,
    clock: new ManualClock(),
    logger: silentLogger,
  });
  return { rec, texts: () => written.map((e) => `${e.qualifier}${e.code} ${e.text}`) };
}

test('changedSections names the top-level sections whose content differs, sorted', () => {
  assert.equal(changedSections({ a: 1, b: { x: 1 }, c: [1] }, { a: 1, b: { x: 2 }, c: [1], d: true }), ['b', 'd']);
});

test('gateway_started at start, settings_changed per saved update (section names only), gateway_stopping at stop', async () => {
  const { rec, texts } = recorder();
  const listeners = new Set<(n: object, p: object) => void>();
  const events = new GatewayEvents({
    raise: rec.raise,
    idle: () => rec.idle(),
    logger: silentLogger,
    version: '0.1.0',
    settings: { onChange: (l) => (listeners.add(l), () => listeners.delete(l)) },
  });
  await events.start();
  for (const l of listeners)
    l(
      { tracker: { timeout_multiplier: 4 }, api: { api_jwt_secret: 'new' } },
      { tracker: { timeout_multiplier: 3 }, api: { api_jwt_secret: 'old' } },
    );
  for (const l of listeners) l({ general: 1 }, { general: 1 });
  await events.stop();
  assert.equal(texts(), [
    'E305 Gateway started (version 0.1.0)',
    'E306 Settings changed (api,tracker)',
    'E308 Gateway stopping',
  ]);
  assert.is(listeners.size, 0);
});

test('login_failed: one event per failure, at most one a minute, the next one says how many it stands for', async () => {
  const { rec, texts } = recorder();
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const throttle = new ReportingLoginThrottle({ clock, raise: rec.raise });
  const attempt = (address: string, outcome: 'success' | 'failure'): void => {
    assert.ok(throttle.begin(address).allowed);
    throttle.finish(address, outcome);
  };
  attempt('10.0.0.1', 'failure');
  attempt('10.0.0.2', 'failure');
  attempt('10.0.0.3', 'success');
  attempt('10.0.0.2', 'failure');
  clock.advance(60_000);
  attempt('10.0.0.4', 'failure');
  await rec.idle();
  assert.equal(texts(), ['E461 Login failed (from 10.0.0.1)', 'E461 Login failed (3 failures, last from 10.0.0.4)']);
});

test('login_failed: a burst against one account is raised at once, once per episode, without the login name', async () => {
  const { rec, texts } = recorder();
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const throttle = new ReportingLoginThrottle({ clock, raise: rec.raise });
  for (let i = 1; i <= 12; i += 1) {
    const address = `10.0.0.${i}`;
    assert.ok(throttle.begin(address).allowed);
    const account = throttle.beginAccount('admin', address);
    if (account.allowed) throttle.finish(address, 'failure', 'admin');
    else throttle.finish(address, null);
    clock.advance(1000);
  }
  await rec.idle();
  assert.equal(texts(), [
    'E461 Login failed (from 10.0.0.1)',
    'E461 Login failed (burst: 10 failures for one account from 10 addresses)',
  ]);
});

test('the reporting throttle still throttles like LoginThrottle', () => {
  const throttle = new ReportingLoginThrottle({ clock: new ManualClock(), raise: async () => null, freeFailures: 1 });
  assert.ok(throttle.begin('a').allowed);
  throttle.finish('a', 'failure');
  assert.not.ok(throttle.begin('a').allowed);
});

test.run();
