/**
 * The channel manifest's checks (src/update/channel-manifest.ts), the gates (channel-gates.ts) and the
 * decision (channel-decision.ts): pure, the cases the service test does not reach one by one.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decide, type DecisionFacts } from '../../src/update/channel-decision.js';
import { gateClosed, inWindow, minutesOf } from '../../src/update/channel-gates.js';
import { checkManifest, currentWavePercent, waveBucket } from '../../src/update/channel-manifest.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const URL_ = 'https://updates.example/vigil/stable/channel.cms';
const base = {
  format: 'vigil-channel-1',
  compatible: 'vigil-rpi-arm64',
  serial: 7,
  issued_at: '2026-11-28T10:00:00Z',
  expires_at: '2026-12-05T10:00:00Z',
  version: '0.2.0',
  bundle_url: 'vigil-0.2.0-arm64.raucb',
  waves: [
    { from: '2026-11-28T10:00:00Z', percent: 5 },
    { from: '2026-11-29T10:00:00Z', percent: 25 },
  ],
};
const check = (fields: Record<string, unknown>, accepted: { serial: number; digest: string } | null = null) =>
  checkManifest(Buffer.from(JSON.stringify({ ...base, ...fields })), URL_, NOW, accepted);

test('a good manifest: the bundle URL resolved beside it, the waves kept', () => {
  const r = check({});
  if (!r.ok) throw new Error(r.message);
  assert.is(r.manifest.bundle_url, 'https://updates.example/vigil/stable/vigil-0.2.0-arm64.raucb');
  assert.is(currentWavePercent(r.manifest.waves, NOW), 5);
  assert.is(currentWavePercent(r.manifest.waves, Date.parse('2026-11-30T00:00:00Z')), 25);
  assert.is(currentWavePercent(r.manifest.waves, Date.parse('2026-11-27T00:00:00Z')), 0, 'before the first wave');
});

test('each refusal has its code', () => {
  const code = (fields: Record<string, unknown>, accepted: { serial: number; digest: string } | null = null) => {
    const r = check(fields, accepted);
    return r.ok ? 'ok' : r.code;
  };
  assert.is(code({ format: 'other' }), 'BAD_MANIFEST');
  assert.is(code({ compatible: 'other-board' }), 'WRONG_COMPATIBLE');
  assert.is(code({ serial: 0 }), 'BAD_MANIFEST');
  assert.is(code({ expires_at: '2026-11-28T11:00:00Z' }), 'EXPIRED');
  assert.is(code({ expires_at: '2027-11-28T10:00:00Z' }), 'BAD_MANIFEST', 'longer than 90 days');
  assert.is(code({ issued_at: '2026-11-28T14:00:00Z', expires_at: '2026-11-29T10:00:00Z' }), 'NOT_YET_VALID');
  assert.is(code({ issued_at: '2026-11-28T12:30:00Z' }), 'ok', 'a clock half an hour behind');
  assert.is(code({ version: 'latest' }), 'BAD_MANIFEST');
  assert.is(code({ bundle_url: 'ftp://x/y' }), 'BAD_MANIFEST');
  assert.is(code({ waves: [] }), 'BAD_MANIFEST');
  assert.is(code({ waves: [{ from: '2026-11-28T10:00:00Z', percent: 101 }] }), 'BAD_MANIFEST');
  assert.is(
    code({
      waves: [
        { from: '2026-11-29T10:00:00Z', percent: 5 },
        { from: '2026-11-28T10:00:00Z', percent: 25 },
      ],
    }),
    'BAD_MANIFEST',
    'waves out of order',
  );
  const first = check({});
  if (!first.ok) throw new Error('first');
  const accepted = { serial: 7, digest: first.manifest.digest };
  assert.is(code({}, accepted), 'ok', 'the same manifest again');
  assert.is(code({ version: '0.2.1' }, accepted), 'REPLAYED', 'the same serial with other content');
  assert.is(code({ serial: 6 }, accepted), 'REPLAYED');
  assert.is(code({ serial: 6, expires_at: '2026-11-28T11:00:00Z' }, accepted), 'REPLAYED', 'a replay is told as one');
  assert.is(code({ serial: 8 }, accepted), 'ok');
  assert.not.ok(checkManifest(Buffer.from('not json'), URL_, NOW, null).ok);
});

test('wave buckets are stable and spread', () => {
  assert.is(waveBucket('a'), waveBucket('a'));
  const buckets = Array.from({ length: 2000 }, (_, i) => waveBucket(`box-${i}`));
  const under5 = buckets.filter((b) => b < 5).length;
  assert.ok(under5 > 60 && under5 < 140, `${under5} of 2000 in the first 5 %`);
  assert.ok(buckets.every((b) => b >= 0 && b < 100));
});

test('the window: whole day when start = end, past midnight when end < start', () => {
  assert.ok(inWindow({ start: '00:00', end: '00:00' }, 777));
  assert.ok(inWindow({ start: '02:00', end: '05:00' }, minutesOf('02:00')));
  assert.not.ok(inWindow({ start: '02:00', end: '05:00' }, minutesOf('05:00')));
  assert.ok(inWindow({ start: '23:00', end: '01:30' }, minutesOf('00:10')));
  assert.not.ok(inWindow({ start: '23:00', end: '01:30' }, minutesOf('12:00')));
  const facts = {
    now: NOW,
    localMinutes: 180,
    window: { start: '02:00', end: '05:00' },
    outputsBehind: [],
    lastAlarmAt: null,
  };
  assert.is(gateClosed(facts), null);
  assert.is(gateClosed({ ...facts, lastAlarmAt: NOW - 11 * 60_000 }), null, 'ten quiet minutes passed');
  assert.match(gateClosed({ ...facts, lastAlarmAt: NOW - 9 * 60_000 })!, /an alarm 9 min ago/);
});

test('the decision, in its order', () => {
  const f: DecisionFacts = {
    offered: '0.2.0',
    running: '0.1.0',
    record: null,
    booted: 'A',
    bucket: 3,
    wavePercent: 5,
    autoInstall: true,
    autoReboot: true,
    onTrial: false,
    gate: null,
  };
  const pending = {
    from_version: '0.1.0',
    to_version: '0.2.0',
    slot: 'B' as const,
    installed_at: '',
    boot_id: '',
    outcome: 'pending' as const,
    reason: null,
    journaled: [],
    acknowledged_at: null,
  };
  assert.is(decide(f).action, 'install');
  assert.is(decide({ ...f, running: '0.2.0' }).action, 'none');
  assert.match(decide({ ...f, offered: '0.0.9' }).text, /never installs an older version/);
  assert.equal(decide({ ...f, record: pending }).action, 'reboot');
  assert.match(decide({ ...f, record: pending, gate: 'x' }).text, /the reboot waits: x/);
  assert.match(decide({ ...f, record: pending, autoReboot: false }).text, /automatic reboot is off/);
  assert.match(decide({ ...f, record: { ...pending, outcome: 'rolled_back' } }).text, /rolled back on this box/);
  assert.match(decide({ ...f, bucket: 5 }).text, /not for this box yet/);
  assert.match(decide({ ...f, autoInstall: false }).text, /automatic install is off/);
  assert.equal(decide({ ...f, onTrial: true }).gated, true);
  assert.equal(decide({ ...f, gate: 'outside' }), {
    action: 'none',
    text: 'version 0.2.0 waits: outside',
    gated: true,
  });
});

test.run();
