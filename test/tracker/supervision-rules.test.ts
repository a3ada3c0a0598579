import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultSettings } from '../../src/settings/schema.js';
import { paramsFor, restartGraceMs, timeoutMs } from '../../src/tracker/supervision-rules.js';

const tracker = {
  ...defaultSettings().tracker,
  timeout_multiplier: 3,
  timeout_tolerance: 60,
  event_count_for_restore: 1,
  sms_timeout_multiplier: 2,
  sms_timeout_tolerance: 600,
  event_count_for_restore_sms: 4,
};
const IP = paramsFor(tracker, false);
const S = 1000;

test('the timeout is period × multiplier + tolerance; the sms flag selects the sms_* values', () => {
  assert.is(timeoutMs(60, IP), 240 * S);
  assert.is(timeoutMs(60, paramsFor(tracker, true)), 720 * S);
  assert.is(paramsFor(tracker, true).restoreCount, 4);
});

test('restart grace: remaining time at the last checkpoint, within [period + tolerance, timeout]', () => {
  const base = { periodS: 60, params: IP, previousRunStart: 0, lastSeenLagMs: 0 };
  // heard 10 s before the checkpoint: 230 s left
  assert.is(restartGraceMs({ ...base, lastSeen: 1000 * S, aliveAt: 1010 * S }), 230 * S);
  // 200 s before: 40 s left, raised to one period + tolerance
  assert.is(restartGraceMs({ ...base, lastSeen: 1000 * S, aliveAt: 1200 * S }), 120 * S);
  // overdue while watched
  assert.is(restartGraceMs({ ...base, lastSeen: 1000 * S, aliveAt: 1240 * S }), 120 * S);
  assert.is(restartGraceMs({ ...base, lastSeen: 1000 * S, aliveAt: 1241 * S }), 0);
  // heard after the (stale) checkpoint: capped at the full timeout
  assert.is(restartGraceMs({ ...base, lastSeen: 1050 * S, aliveAt: 1000 * S }), 240 * S);
  // no checkpoint: full timeout
  assert.is(restartGraceMs({ ...base, lastSeen: 0, aliveAt: null }), 240 * S);
});

test('restart grace: an object unheard during a short previous run keeps at least the grace that run gave it', () => {
  const input = { periodS: 60, params: IP, lastSeen: 0, previousRunStart: 5000 * S, lastSeenLagMs: 0 };
  assert.is(restartGraceMs({ ...input, aliveAt: 5020 * S }), 120 * S);
  assert.is(restartGraceMs({ ...input, aliveAt: 5120 * S }), 120 * S);
  assert.is(restartGraceMs({ ...input, aliveAt: 5121 * S }), 0);
});

test('restart grace: a stored last_seen that may lag (a crash before the sightings sweep) counts from last_seen + lag', () => {
  // Period 60 s, multiplier 1, no tolerance: timeout − period = 0 < the lag, where a stale value did harm.
  const tight = paramsFor({ ...tracker, timeout_multiplier: 1, timeout_tolerance: 0 }, false);
  const base = { periodS: 60, params: tight, previousRunStart: 0, lastSeen: 1000 * S };
  // Heard at 1040 s (still pending, 1000 s stored), watched until 1080 s: without the lag it looks overdue.
  assert.is(restartGraceMs({ ...base, lastSeenLagMs: 0, aliveAt: 1080 * S }), 0);
  assert.is(restartGraceMs({ ...base, lastSeenLagMs: 65 * S, aliveAt: 1080 * S }), 60 * S);
  // Silent since the stored 1000 s: reported at start once the checkpoint is past 1000 + 65 + 60 s.
  assert.is(restartGraceMs({ ...base, lastSeenLagMs: 65 * S, aliveAt: 1125 * S }), 60 * S);
  assert.is(restartGraceMs({ ...base, lastSeenLagMs: 65 * S, aliveAt: 1126 * S }), 0);
  // Never beyond the full timeout.
  assert.is(restartGraceMs({ ...base, lastSeenLagMs: 65 * S, aliveAt: 1000 * S }), 60 * S);
});

test.run();
