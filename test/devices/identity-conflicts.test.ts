import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { hostOf, IdentityConflicts, MAX_EVENTS_PER_MINUTE } from '../../src/devices/identity-conflicts.js';

function setup() {
  const clock = new ManualClock(1_000_000);
  const health = new HealthRegistry(() => clock.now());
  const raised: string[] = [];
  const conflicts = new IdentityConflicts({ clock, logger: silentLogger, health });
  conflicts.journalTo(async (type, o) => {
    raised.push(`${type}: ${o?.detail}`);
    return 1;
  });
  return { clock, health, raised, conflicts };
}

test('one event per UID and host per minute; the next one says how many it stands for', () => {
  const { clock, raised, conflicts, health } = setup();
  for (let i = 0; i < 3; i++)
    conflicts.report({ uid: 'AB12CD', remote: `192.0.2.9:${4000 + i}`, reason: 'bad_proof', receiverId: 3 });
  assert.equal(raised, ['device_identity_conflict: UID AB12CD from 192.0.2.9: bad_proof']);
  clock.advance(60_000);
  conflicts.report({ uid: 'AB12CD', remote: '192.0.2.9:4100', reason: 'bad_proof', receiverId: 3 });
  assert.is(raised[1], 'device_identity_conflict: UID AB12CD from 192.0.2.9: bad_proof, 2 more since the last event');
  const metrics = health.get('link-identity:3')!.metrics;
  assert.equal([metrics.receiver_id, metrics.conflicts, metrics.suppressed], [3, 4, 2]);
});

test('a flood from many addresses journals at most MAX_EVENTS_PER_MINUTE events a minute, counting the rest', () => {
  const { raised, conflicts, health } = setup();
  for (let i = 0; i < 500; i++)
    conflicts.report({
      uid: 'AB12CD',
      remote: `[2001:db8::${i.toString(16)}]:1`,
      reason: 'not_enrolled',
      receiverId: 1,
    });
  assert.is(raised.length, MAX_EVENTS_PER_MINUTE);
  assert.is(health.get('link-identity:1')!.metrics.suppressed, 500 - MAX_EVENTS_PER_MINUTE);
  assert.is(health.get('link-identity:1')!.state, 'ok', 'a stranger cannot light the trouble LED or fail /health');
});

test('hostOf drops the port of IPv4 and bracketed IPv6 addresses', () => {
  assert.is(hostOf('192.0.2.1:4000'), '192.0.2.1');
  assert.is(hostOf('[2001:db8::1]:4000'), '2001:db8::1');
  assert.is(hostOf('serial'), 'serial');
});

test.run();
