import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkWindow, formatTimestamp, parseTimestamp } from '../../../src/protocols/dc09/timestamp.js';

const W = { windowPastS: 40, windowFutureS: 20, acceptLocalTime: false };
const T = Date.UTC(2026, 1, 28, 23, 59, 59);

test('format and parse are UTC and inverse to the second', () => {
  assert.is(formatTimestamp(T + 999), '23:59:59,02-28-2026');
  assert.is(parseTimestamp('23:59:59,02-28-2026'), T);
  assert.is(formatTimestamp(Date.UTC(2024, 6, 30, 10, 10, 18)), '10:10:18,07-30-2024');
});

test('impossible or malformed timestamps read as null', () => {
  for (const bad of [
    '24:00:00,01-01-2026',
    '12:60:00,01-01-2026',
    '12:00:60,01-01-2026',
    '12:00:00,13-01-2026',
    '12:00:00,00-01-2026',
    '12:00:00,02-29-2026',
    '12:00:00,01-32-2026',
    '12:00:00,01-01-1969',
    '12:00:00,1-01-2026',
    '',
  ]) {
    assert.is(parseTimestamp(bad), null, bad);
  }
  assert.is(parseTimestamp('12:00:00,02-29-2024'), Date.UTC(2024, 1, 29, 12));
});

test('window edges in whole seconds', () => {
  assert.equal(checkWindow(T - 40_000, T, W), { ok: true, deviceTime: T - 40_000, offsetMinutes: 0 });
  assert.equal(checkWindow(T - 41_000, T, W), { ok: false });
  assert.equal(checkWindow(T + 20_000, T + 999, W), { ok: true, deviceTime: T + 20_000, offsetMinutes: 0 });
  assert.equal(checkWindow(T + 21_000, T, W), { ok: false });
});

test('local time: a known offset, or the nearest quarter hour up to 14 hours', () => {
  const local = { ...W, acceptLocalTime: true };
  assert.equal(checkWindow(T + 3600_000, T, { ...local, localOffsetMinutes: 60 }), {
    ok: true,
    deviceTime: T,
    offsetMinutes: 60,
  });
  assert.equal(checkWindow(T + 3600_000, T, { ...local, localOffsetMinutes: -60 }), { ok: false });
  assert.equal(checkWindow(T - 9.75 * 3600_000 - 30_000, T, local), {
    ok: true,
    deviceTime: T - 30_000,
    offsetMinutes: -585,
  });
  assert.equal(checkWindow(T + 7 * 60_000, T, local), { ok: false }); // 7 minutes off is a wrong clock, not a zone
  assert.equal(checkWindow(T + 14.25 * 3600_000, T, local), { ok: false });
});

test.run();
