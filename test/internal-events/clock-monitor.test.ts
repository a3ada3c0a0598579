import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { ClockMonitor, DEFAULT_CLOCK_FLOOR } from '../../src/internal-events/clock-monitor.js';
import { ClockTimers } from '../tracker/helpers/clock-timers.js';

const S = 1000;
const MIN = 60 * S;

/** `mono` drives the timers (it never steps); `wall` is the system clock under test. */
function setup(wallStart: number) {
  const mono = new ManualClock(0);
  const timers = new ClockTimers(mono);
  const wall = new ManualClock(wallStart);
  const raised: string[] = [];
  const monitor = new ClockMonitor({
    clock: wall,
    monotonic: () => mono.now(),
    timers,
    logger: silentLogger,
    raise: async (type, options) => {
      raised.push(options?.detail ? `${type}: ${options.detail}` : type);
      return 1;
    },
  });
  /** Both clocks run on together, as they do when nobody steps the wall clock. */
  const run = (ms: number): void => {
    const steps = Math.ceil(ms / (10 * S));
    for (let i = 0; i < steps; i++) {
      const d = Math.min(10 * S, ms - i * 10 * S);
      wall.advance(d);
      timers.advance(d);
    }
  };
  return { wall, timers, raised, monitor, run };
}

test('a clock before the release floor is trouble; NTP correcting it restores at once', async () => {
  const { wall, timers, raised, monitor } = setup(Date.UTC(1970, 0, 1, 0, 0, 30));
  await monitor.start();
  assert.equal(raised, ['clock_trouble: clock 1970-01-01T00:00:30.000Z is before 2026-01-01T00:00:00.000Z']);
  wall.set(Date.UTC(2026, 5, 1)); // NTP steps it to the real time
  timers.advance(10 * S);
  assert.equal(raised.slice(1), ['clock_restored']);
  assert.is(monitor.inTrouble(), false);
  await monitor.stop();
});

test('a step of more than a minute is trouble; restored after ten steady minutes', async () => {
  const { wall, timers, raised, monitor, run } = setup(Date.UTC(2026, 5, 1));
  await monitor.start();
  run(30 * S);
  assert.equal(raised, []);
  wall.advance(-2 * 3600 * S); // someone set the clock back two hours (and the wall clock did not run on meanwhile)
  timers.advance(10 * S);
  assert.equal(raised, ['clock_trouble: clock stepped by -7210 s']);
  run(10 * MIN - 10 * S);
  assert.equal(raised.length, 1, 'not yet ten steady minutes');
  run(10 * S);
  assert.equal(raised, ['clock_trouble: clock stepped by -7210 s', 'clock_restored']);
  await monitor.stop();
});

test('drift under the threshold (NTP slewing) is no trouble', async () => {
  const { wall, timers, raised, monitor } = setup(Date.UTC(2026, 5, 1));
  await monitor.start();
  for (let i = 0; i < 30; i++) {
    wall.advance(10 * S + 500);
    timers.advance(10 * S);
  }
  assert.equal(raised, []);
  await monitor.stop();
});

test('a second step during trouble raises nothing new but restarts the steady period', async () => {
  const { wall, timers, raised, monitor, run } = setup(Date.UTC(2026, 5, 1));
  await monitor.start();
  wall.advance(3600 * S);
  timers.advance(10 * S);
  run(5 * MIN);
  wall.advance(3600 * S);
  timers.advance(10 * S);
  run(10 * MIN - 10 * S);
  assert.equal(raised.length, 1);
  run(10 * S);
  assert.equal(raised.slice(1), ['clock_restored']);
  assert.ok(DEFAULT_CLOCK_FLOOR <= Date.UTC(2026, 5, 1));
  await monitor.stop();
});

test.run();
