import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { SEEN_MAX_LAG_MS, SIGHTINGS_FLUSHED_KEY } from '../../src/writer/seen-log.js';
import { CHECKPOINT_KEY, Tracker } from '../../src/tracker/tracker.js';
import { ClockTimers, settle } from './helpers/clock-timers.js';
import { T0, trackerFixture, type TrackerFixture } from './helpers/tracker-fixture.js';

const S = 1000;
const HOUR = 3600 * S;

/** An object the previous run had learned: period 60 s (timeout 240 s), last heard at `lastSeen`. */
async function supervisedObject(
  t: TrackerFixture,
  account: string,
  lastSeen: number,
  state = 'supervised',
): Promise<number> {
  const obj = await t.addObject({ account, at: lastSeen });
  await t.fx.store.write.objects.updateSupervision(obj.id, { linkPeriodS: 60, supervisionState: state });
  if (state === 'lost') await t.fx.store.write.objects.setConnectionState(obj.id, 'lost');
  return obj.id;
}

async function checkpoint(t: TrackerFixture, runStartedAt: number, aliveAt: number): Promise<void> {
  await t.fx.store.write.meta.set(CHECKPOINT_KEY, JSON.stringify({ run_started_at: runStartedAt, alive_at: aliveAt }));
}

async function lostAccounts(t: TrackerFixture): Promise<string[]> {
  await settle();
  await t.recorder.idle();
  return t.internalEvents().map((e) => `${e.qualifier}${e.code}#${e.account}`);
}

test('a restart floods no false "lost": each object gets its remaining time, at least one period plus tolerance', async () => {
  const t = await trackerFixture();
  try {
    const a = await supervisedObject(t, '000A', T0);
    const b = await supervisedObject(t, '000B', T0);
    await t.tracker.start();
    t.timers.advance(20 * S);
    await t.message(b);
    t.timers.advance(170 * S);
    await t.message(a);
    t.timers.advance(10 * S); // A heard 10 s before the stop (230 s left), B 180 s before (60 s left)
    await t.tracker.stop();
    t.clock.advance(HOUR); // the gateway is down for an hour: the devices' messages went nowhere
    await t.newTracker().start();
    t.timers.advance(120 * S);
    assert.equal(await lostAccounts(t), [], 'B still within one period + tolerance (120 s) of the start');
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#000B']);
    t.timers.advance(109 * S);
    assert.equal(await lostAccounts(t), ['E350#000B'], 'A still within the 230 s it had left');
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#000B', 'E350#000A']);
  } finally {
    await t.cleanup();
  }
});

test('a restart misses no real loss: a deadline that passed while the previous run watched is reported at start', async () => {
  const t = await trackerFixture();
  try {
    const silent = await supervisedObject(t, '0001', T0);
    const fine = await supervisedObject(t, '0002', T0 + 200 * S);
    // The previous run watched until T0+250 s and died before its sweep saw 0001 overdue (240 s).
    await checkpoint(t, T0 - HOUR, T0 + 250 * S);
    t.clock.set(T0 + 2 * HOUR);
    await t.tracker.start();
    assert.equal(await lostAccounts(t), ['E350#0001']);
    assert.is(t.object(silent).connectionState, 'lost');
    assert.is(t.tracker.supervisor.state(fine)?.lost, false);
  } finally {
    await t.cleanup();
  }
});

test('a lost object stays lost across a restart without a second event, and its restore count carries on', async () => {
  const t = await trackerFixture({ event_count_for_restore: 3 });
  try {
    const id = await supervisedObject(t, '0003', T0 - HOUR, 'lost');
    await t.fx.store.write.objects.updateSupervision(id, { restoreCount: 1 });
    await checkpoint(t, T0 - 2 * HOUR, T0 - 10 * S);
    await t.tracker.start();
    t.timers.advance(100 * S);
    assert.equal(await lostAccounts(t), []);
    await t.message(id);
    assert.is(t.object(id).restoreCount, 2);
    await t.message(id);
    assert.equal(await lostAccounts(t), ['R350#0003']);
  } finally {
    await t.cleanup();
  }
});

test('a crash loop shorter than one period + tolerance never makes a silent object lost', async () => {
  const t = await trackerFixture();
  try {
    await supervisedObject(t, '0004', T0 - 5 * HOUR);
    await checkpoint(t, T0 - HOUR, T0 - HOUR);
    for (let run = 0; run < 5; run++) {
      t.clock.advance(30 * S); // down for 30 s
      await t.newTracker().start();
      t.timers.advance(20 * S); // up for 20 s, then it dies (stop writes the checkpoint a crash would have left)
      await t.tracker.stop();
    }
    assert.equal(await lostAccounts(t), []);
    // Once a run watches it a full period + tolerance (120 s) in silence, it is reported.
    await t.newTracker().start();
    t.timers.advance(121 * S);
    assert.equal(await lostAccounts(t), ['E350#0004']);
  } finally {
    await t.cleanup();
  }
});

test('without a checkpoint (first run) every supervised object gets its full timeout from the start', async () => {
  const t = await trackerFixture();
  try {
    await supervisedObject(t, '0005', T0 - 5 * HOUR);
    await t.tracker.start();
    t.timers.advance(240 * S);
    assert.equal(await lostAccounts(t), []);
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#0005']);
  } finally {
    await t.cleanup();
  }
});

test("the remaining time is taken in the previous run's clock base: a clock stepped back between runs changes nothing", async () => {
  const t = await trackerFixture();
  try {
    // The previous run's clock was a day ahead: it heard the object 5 s before its last checkpoint.
    await supervisedObject(t, '0006', T0 + 24 * HOUR);
    await checkpoint(t, T0 + 23 * HOUR, T0 + 24 * HOUR + 5 * S);
    await t.tracker.start();
    t.timers.advance(235 * S);
    assert.equal(await lostAccounts(t), []);
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#0006']);
  } finally {
    await t.cleanup();
  }
});

test('an object heard after the last checkpoint (a stale one) gets no more than its full timeout', async () => {
  const t = await trackerFixture();
  try {
    // Checkpoints are written once a minute: the run heard the object 50 s after its last one, then died.
    await supervisedObject(t, '0008', T0 - HOUR + 50 * S);
    await checkpoint(t, T0 - 2 * HOUR, T0 - HOUR);
    await t.tracker.start();
    t.timers.advance(240 * S);
    assert.equal(await lostAccounts(t), []);
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#0008']);
  } finally {
    await t.cleanup();
  }
});

test('a wall-clock step while running changes no deadline: silences are measured on the supervision clock', async () => {
  const t = await trackerFixture();
  try {
    const id = await supervisedObject(t, '0007', T0);
    const steady = new ManualClock(1_000_000);
    const timers = new ClockTimers(steady);
    const tracker = new Tracker({
      objects: t.fx.store.objects,
      meta: t.fx.store.meta,
      write: t.fx.store.write,
      settings: () => t.tracker_settings,
      storedSightingsLagMs: 0,
      bus: t.bus,
      raise: t.recorder.raise,
      clock: t.clock,
      supervisionClock: steady,
      timers,
      logger: silentLogger,
    });
    t.tracker = tracker;
    await tracker.start();
    await t.message(id);
    t.clock.advance(24 * HOUR); // NTP steps the wall clock a day forward
    timers.advance(239 * S);
    assert.equal(await lostAccounts(t), []);
    await t.message(id);
    t.clock.advance(-48 * HOUR); // and two days back
    timers.advance(241 * S);
    assert.equal(await lostAccounts(t), ['E350#0007'], 'a step back does not postpone the loss either');
  } finally {
    await t.cleanup();
  }
});

test("the checkpoint records this run's start and is refreshed while supervising and at stop", async () => {
  const t = await trackerFixture();
  try {
    await t.tracker.start();
    assert.equal(JSON.parse(t.fx.store.meta.get(CHECKPOINT_KEY)!), { run_started_at: T0, alive_at: T0 });
    t.timers.advance(90 * S);
    await t.tracker.idle();
    assert.equal(JSON.parse(t.fx.store.meta.get(CHECKPOINT_KEY)!), { run_started_at: T0, alive_at: T0 + 60 * S });
    await t.tracker.stop();
    assert.equal(JSON.parse(t.fx.store.meta.get(CHECKPOINT_KEY)!), { run_started_at: T0, alive_at: T0 + 90 * S });
  } finally {
    await t.cleanup();
  }
});

test('after a crash the stored last_seen may lag one sweep: a device heard before the crash and again within its period is not lost', async () => {
  // Timeout 70 s for a period of 60 s: timeout − period (10 s) is under the sweep's lag.
  const t = await trackerFixture({ timeout_multiplier: 1, timeout_tolerance: 10 });
  try {
    t.sightingsLagMs = SEEN_MAX_LAG_MS;
    // Heard at T0 (stored by the sweep at T0+59 s) and at T0+60 s (pending: the next sweep was due at
    // T0+119 s); the last checkpoint at T0+117 s, the crash at T0+118 s.
    const live = await supervisedObject(t, '0009', T0);
    await checkpoint(t, T0 - HOUR, T0 + 117 * S);
    t.clock.set(T0 + 150 * S);
    await t.newTracker().start();
    assert.equal(await lostAccounts(t), [], 'taken at the stored value, it would be overdue since T0+70 s');
    t.timers.advance(50 * S);
    await t.message(live); // its next link test after the restart
    t.timers.advance(70 * S);
    assert.equal(await lostAccounts(t), []);
    t.timers.advance(1 * S);
    assert.equal(await lostAccounts(t), ['E350#0009'], 'then silent for its timeout: lost');
  } finally {
    await t.cleanup();
  }
});

/**
 * Timeout 190 s; an object silent since T0, 90 s left at the previous run's last checkpoint
 * (T0+100 s); `mark`: the writer's clean-stop mark. Restarted an hour later: when is it lost?
 */
async function silentObjectLostAfter(mark: number | null): Promise<{ lostAfterMs: number; markLeft: string | null }> {
  const t = await trackerFixture({ timeout_multiplier: 3, timeout_tolerance: 10 });
  try {
    t.sightingsLagMs = SEEN_MAX_LAG_MS;
    await supervisedObject(t, '000C', T0);
    await checkpoint(t, T0 - HOUR, T0 + 100 * S);
    if (mark !== null) await t.fx.store.write.meta.set(SIGHTINGS_FLUSHED_KEY, String(mark));
    t.clock.set(T0 + HOUR);
    await t.newTracker().start();
    const markLeft = t.fx.store.meta.get(SIGHTINGS_FLUSHED_KEY);
    for (let elapsed = 0; elapsed <= 300 * S; elapsed += S) {
      if ((await lostAccounts(t)).includes('E350#000C')) return { lostAfterMs: elapsed, markLeft };
      t.timers.advance(S);
    }
    return { lostAfterMs: Infinity, markLeft };
  } finally {
    await t.cleanup();
  }
}

test('after a crash a device silent since its stored last_seen is still reported, at most the lag later', async () => {
  // 90 s left; allowed the lag, 90 s + 65 s; lost one tick after.
  assert.equal(await silentObjectLostAfter(null), { lostAfterMs: 90 * S + SEEN_MAX_LAG_MS + S, markLeft: null });
});

test("after a clean stop (the writer's mark, after the last checkpoint) the stored last_seen is exact: no allowance, and the mark is used once", async () => {
  assert.equal(await silentObjectLostAfter(T0 + 101 * S), { lostAfterMs: 91 * S, markLeft: null });
});

test('a mark older than the last checkpoint (a clean stop of some earlier run) does not count', async () => {
  const t = await trackerFixture({ timeout_multiplier: 1, timeout_tolerance: 10 });
  try {
    t.sightingsLagMs = SEEN_MAX_LAG_MS;
    await supervisedObject(t, '000E', T0);
    await checkpoint(t, T0 - HOUR, T0 + 117 * S);
    await t.fx.store.write.meta.set(SIGHTINGS_FLUSHED_KEY, String(T0 + 116 * S));
    t.clock.set(T0 + 150 * S);
    await t.newTracker().start();
    assert.equal(await lostAccounts(t), [], 'the lag is allowed for');
  } finally {
    await t.cleanup();
  }
});

test.run();
