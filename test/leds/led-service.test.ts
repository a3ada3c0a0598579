/**
 * The LED service (src/leds/led-service.ts) driving lamps from the health registry: the lamp test,
 * pattern phases, re-evaluation on health changes, a board without LEDs, a lamp that fails.
 * Lamps here record what they are told (the GPIO driver has its own tests in test/hw/).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { createLogger } from '../../src/core/logger.js';
import type { Lamp, LampsOpened, StatusLamps } from '../../src/leds/lamp.js';
import { LedService } from '../../src/leds/led-service.js';

class RecordingLamp implements Lamp {
  lit = false;
  fail: Error | null = null;
  set(on: boolean): void {
    if (this.fail) throw this.fail;
    this.lit = on;
  }
}

function rig(open?: () => Promise<LampsOpened>) {
  const lamps = { power: new RecordingLamp(), link: new RecordingLamp(), trouble: new RecordingLamp(), closed: 0 };
  const status: StatusLamps = {
    power: lamps.power,
    link: lamps.link,
    trouble: lamps.trouble,
    close: () => void lamps.closed++,
  };
  const health = new HealthRegistry();
  const logs: string[] = [];
  let now = 0;
  const service = new LedService({
    health,
    open: open ?? (async () => ({ lamps: status, description: 'test lamps' })),
    logger: createLogger('leds', (l) => logs.push(l), 'info'),
    now: () => now,
    tickMs: 60_000, // the test draws frames itself
  });
  const at = (ms: number): string => {
    now = ms;
    service.tick();
    return [lamps.power, lamps.link, lamps.trouble].map((l) => (l.lit ? '#' : '.')).join('');
  };
  return { lamps, health, logs, service, at };
}

test('lamp test: all three lit for the first second, then the patterns', async () => {
  const r = rig();
  r.health.report('self-check', 'self-check', 'ok');
  r.health.report('rx:tcp:1', 'receiver', 'ok', null, { connections: 1, frames: 0 });
  await r.service.start();
  try {
    assert.is(r.at(0), '###');
    assert.is(r.at(999), '###');
    // 1000: patterns start: power heartbeat (lit 1 s), link steady, trouble dark.
    assert.is(r.at(1000), '##.');
    assert.is(r.at(1999), '##.');
    assert.is(r.at(2000), '.#.', 'heartbeat dark after 1 s');
    assert.is(r.at(3000), '##.');
    assert.equal(r.service.current?.troubles, []);
  } finally {
    await r.service.stop();
  }
  assert.is(r.lamps.closed, 1);
  assert.is(r.health.get('leds'), undefined);
});

test('a health change shows at the next frame, and a new pattern starts at its beginning', async () => {
  const r = rig();
  r.health.report('self-check', 'self-check', 'ok');
  await r.service.start();
  try {
    r.at(1000);
    assert.is(r.at(1100), '#..', 'no receiver: link dark');
    r.health.report('out:1', 'output', 'failed', 'refused');
    // code 1: 300 ms lit, then a 2 s pause, from the moment it appeared.
    assert.is(r.at(1200), '#.#');
    assert.is(r.at(1499), '#.#');
    assert.is(r.at(1500), '#..');
    assert.is(r.at(3499), '#..', 'power: lit again from 3000');
    assert.is(r.at(3500), '#.#', 'the next round');
    r.health.report('out:1', 'output', 'ok');
    assert.is(r.at(3600), '#..');
  } finally {
    await r.service.stop();
  }
});

test('figures that change without a state change (backlog) are re-read every second', async () => {
  const r = rig();
  r.health.report('out:1', 'output', 'ok', null, { backlog: 0 });
  await r.service.start();
  try {
    assert.is(r.at(1000).at(2), '.');
    r.health.setMetrics('out:1', { backlog: 5000 });
    assert.is(r.at(1500).at(2), '.', 'not yet re-read');
    assert.is(r.at(2000).at(2), '#', 'backlogged: code 1');
  } finally {
    await r.service.stop();
  }
});

test('a board without GPIO: one info line, component leds ok with the reason, nothing drawn', async () => {
  const r = rig(async () => ({ lamps: null, reason: 'no Raspberry Pi GPIO controller under /sys/class/gpio' }));
  await r.service.start();
  try {
    assert.is(r.at(0), '...');
    assert.equal(r.logs.length, 1);
    assert.match(r.logs[0]!, /INFO leds status LEDs off .*no Raspberry Pi GPIO controller/);
    assert.equal(
      [r.health.get('leds')?.state, r.health.get('leds')?.detail],
      ['ok', 'off: no Raspberry Pi GPIO controller under /sys/class/gpio'],
    );
  } finally {
    await r.service.stop();
  }
});

test('LEDs that cannot be opened, or a lamp that cannot be written: degraded with the reason, the gateway goes on', async () => {
  const broken = rig(async () => {
    throw new Error('EACCES: permission denied, open /sys/class/gpio/export');
  });
  await broken.service.start();
  assert.equal(broken.health.get('leds')?.state, 'degraded');
  assert.match(broken.health.get('leds')!.detail!, /status LEDs unavailable: .*EACCES/);
  await broken.service.stop();

  const r = rig();
  await r.service.start();
  try {
    r.lamps.link.fail = new Error('EIO');
    r.at(0);
    r.at(1000);
    assert.equal(r.health.get('leds')?.state, 'degraded');
    assert.match(r.health.get('leds')!.detail!, /cannot write the link LED: .*EIO/);
    assert.is(r.logs.filter((l) => l.includes('cannot write a status LED')).length, 1, 'logged once');
    assert.ok(r.lamps.power.lit, 'the others still work');
  } finally {
    await r.service.stop();
  }
});

test.run();
