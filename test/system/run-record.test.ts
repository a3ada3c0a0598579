import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  endedRun,
  endFromSystemd,
  failedStart,
  previousRun,
  startedRun,
  type RunRecord,
} from '../../src/system/run-record.js';

const BOOT_A = 'a8f5d1c2-0000-4000-8000-000000000001';
const BOOT_B = 'a8f5d1c2-0000-4000-8000-000000000002';
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);

test('what systemd saw, for ExecStopPost (systemd.exec(5) SERVICE_RESULT / EXIT_CODE / EXIT_STATUS)', () => {
  assert.equal(endFromSystemd({ SERVICE_RESULT: 'watchdog', EXIT_CODE: 'dumped', EXIT_STATUS: 'ABRT' }), {
    how: 'watchdog',
    detail: "killed by systemd's watchdog (SIGABRT): no WATCHDOG=1 within WatchdogSec",
  });
  assert.equal(endFromSystemd({ SERVICE_RESULT: 'exit-code', EXIT_CODE: 'exited', EXIT_STATUS: '1' }), {
    how: 'crash',
    detail: 'exited with status 1',
  });
  assert.equal(endFromSystemd({ SERVICE_RESULT: 'signal', EXIT_CODE: 'killed', EXIT_STATUS: 'KILL' }), {
    how: 'killed',
    detail: 'killed by SIGKILL',
  });
  assert.equal(endFromSystemd({ SERVICE_RESULT: 'oom-kill' }).detail, 'killed by the kernel: out of memory');
  assert.equal(endFromSystemd({ SERVICE_RESULT: 'success', EXIT_CODE: 'exited', EXIT_STATUS: '0' }).how, 'clean stop');
  assert.equal(endFromSystemd({}), { how: 'unknown', detail: 'systemd reported nothing' });
});

test('no record: a first start; a clean stop is told as one, with no reboot', () => {
  assert.is(previousRun(null, BOOT_A), null);
  const ended = endedRun(
    startedRun(null, { bootId: BOOT_A, pid: 10, now: T0 }),
    'clean stop',
    'stopped cleanly',
    T0 + 5000,
  );
  assert.equal(previousRun(ended, BOOT_A), {
    how: 'clean stop',
    detail: 'stopped cleanly',
    at: T0 + 5000,
    rebooted: false,
  });
});

test('a run still marked running: power loss or reset after another boot, killed unseen in the same boot', () => {
  const running = startedRun(null, { bootId: BOOT_A, pid: 10, now: T0 });
  assert.is(previousRun(running, BOOT_B)!.how, 'power loss or reset');
  assert.ok(previousRun(running, BOOT_B)!.rebooted);
  assert.is(previousRun(running, BOOT_A)!.how, 'killed');
});

test('five failed runs within ten minutes, then another boot: the start limit rebooted the box', () => {
  let record: RunRecord | null = null;
  for (let i = 0; i < 5; i += 1) {
    record = endedRun(
      startedRun(record, { bootId: BOOT_A, pid: 10 + i, now: T0 + i * 60_000 }),
      'watchdog',
      'killed by the watchdog',
      T0 + i * 60_000 + 30_000,
    );
  }
  const told = previousRun(record, BOOT_B)!;
  assert.is(told.how, 'watchdog');
  assert.match(told.detail, /5 failed runs within 10 minutes: systemd rebooted the box \(StartLimitAction=reboot\)/);
  // The same ends without a reboot are a restart by systemd, not the start limit.
  assert.not.match(previousRun(record, BOOT_A)!.detail, /StartLimitAction/);
});

test('the history keeps the last twenty ends only, each with its slot and boot', () => {
  let record: RunRecord | null = null;
  for (let i = 0; i < 24; i += 1)
    record = endedRun(startedRun(record, { bootId: BOOT_A, pid: i, now: T0 + i, slot: 'A' }), 'crash', 'x', T0 + i);
  assert.is(record!.recent_ends.length, 20);
  assert.is(record!.recent_ends[0]!.at, T0 + 4);
  assert.equal(record!.recent_ends[0], {
    at: T0 + 4,
    how: 'crash',
    slot: 'A',
    boot_id: BOOT_A,
    started: true,
    detail: 'x',
  });
});

test('a run cut by a reset enters the history at the next start, on its own slot', () => {
  const running = startedRun(null, { bootId: BOOT_A, pid: 10, now: T0, slot: 'B' });
  const next = startedRun(running, { bootId: BOOT_B, pid: 11, now: T0 + 90_000, slot: 'A' });
  assert.equal(
    next.recent_ends.map((e) => [e.how, e.slot, e.boot_id, e.started]),
    [['power loss or reset', 'B', BOOT_A, true]],
  );
  assert.is(next.slot, 'A');
});

test('a start that failed before the gateway marked its run: the record is that run, never started', () => {
  const before = endedRun(
    startedRun(null, { bootId: BOOT_A, pid: 10, now: T0, slot: 'A' }),
    'clean stop',
    'ok',
    T0 + 1,
  );
  const failed = failedStart(before, {
    bootId: BOOT_B,
    pid: 0,
    now: T0 + 60_000,
    invocation: 'inv-9',
    slot: 'B',
    how: 'crash',
    detail: 'exited with status 1',
  });
  assert.is(failed.state, 'ended');
  assert.is(failed.invocation, 'inv-9');
  assert.equal(failed.recent_ends.at(-1), {
    at: T0 + 60_000,
    how: 'crash',
    slot: 'B',
    boot_id: BOOT_B,
    started: false,
    detail: 'exited with status 1',
  });
  assert.equal(previousRun(failed, BOOT_B)!.detail, 'the gateway never started: exited with status 1');
});

test.run();
