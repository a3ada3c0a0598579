import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { DAY_MS, type RetentionPolicy, type RetentionStore } from '../../src/housekeeping/retention.js';
import { RetentionJob } from '../../src/housekeeping/retention-job.js';
import { waitFor } from '../helpers/net.js';
import { sampleEvent, startStore } from '../store/helpers/store-fixture.js';

const policy = (days: number): RetentionPolicy => ({
  removeEventsAgeDays: days,
  removeLostObjectsAgeDays: 30,
  sessionLogCount: 10,
  outputIds: [],
  extraFloors: [],
});

test('the job runs once shortly after start, then every interval, reading the policy at each pass', async () => {
  const f = await startStore();
  let days = 10;
  let reads = 0;
  const job = new RetentionJob({
    store: f.store,
    policy: () => (reads++, policy(days)),
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    initialDelayMs: 20,
    intervalMs: 150,
  });
  try {
    const now = f.clock.now();
    await f.store.write.events.append([
      sampleEvent({ receivedAt: now - 20 * DAY_MS }),
      sampleEvent({ receivedAt: now - 5 * DAY_MS }),
    ]);
    await job.start();
    assert.is(f.health.get('retention')?.state, 'ok');
    assert.is(f.health.get('retention')?.detail, 'first pass in 0 s');
    await waitFor(() => reads === 1, 2000);
    await waitFor(() => f.health.get('retention')?.metrics.events_deleted === 1, 2000);
    assert.equal(f.health.get('retention')?.metrics, {
      last_run_at: now,
      events_deleted: 1,
      objects_deleted: 0,
      sessions_trimmed: 0,
      keep_after_id: null,
    });
    assert.is(f.health.get('retention')?.kind, 'job');
    days = 1; // applies at the next pass, no restart
    await waitFor(() => reads === 2, 2000);
    await waitFor(() => f.store.events.countAfter(0) === 0, 2000);
  } finally {
    await job.stop();
    await f.cleanup();
  }
  assert.is(f.health.get('retention'), undefined);
});

test('a failed pass reports degraded with the reason and is retried', async () => {
  const f = await startStore();
  let calls = 0;
  const failing: RetentionStore = {
    objects: f.store.objects,
    write: f.store.write,
    cursors: {
      all: () => {
        calls++;
        if (calls === 1) throw new Error('disk I/O error');
        return [];
      },
    },
  };
  const job = new RetentionJob({
    store: failing,
    policy: () => policy(10),
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    initialDelayMs: 10,
    retryMs: 50,
  });
  try {
    await job.start();
    await waitFor(() => f.health.get('retention')?.state === 'degraded', 2000);
    assert.is(f.health.get('retention')?.detail, 'last pass failed: disk I/O error');
    await waitFor(() => f.health.get('retention')?.state === 'ok', 2000);
    assert.is(calls, 2);
  } finally {
    await job.stop();
    await f.cleanup();
  }
});

test('runOnce joins a pass already under way instead of starting a second', async () => {
  const f = await startStore();
  const job = new RetentionJob({
    store: f.store,
    policy: () => policy(10),
    health: f.health,
    logger: silentLogger,
    clock: f.clock,
    initialDelayMs: 60_000,
  });
  try {
    await job.start();
    const a = job.runOnce();
    const b = job.runOnce();
    assert.is(a, b);
    assert.is((await a).interrupted, false);
  } finally {
    await job.stop();
    await f.cleanup();
  }
});

test.run();
