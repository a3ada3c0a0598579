/**
 * Messages refused for want of a new-object allowance are journaled as `new_object_refused` (docs/security.md
 * "Admission"), rate-limited so that the flood they come from cannot fill the journal in turn: one event per
 * source per ten minutes, MAX_EVENTS_PER_INTERVAL in all per ten minutes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { MAX_EVENTS_PER_INTERVAL, ObjectRefusals } from '../../src/internal-events/object-refusals.js';
import { findInternalEvent } from '../../src/internal-events/catalog.js';

function setup() {
  const clock = new ManualClock(1_000_000);
  const raised: string[] = [];
  const refusals = new ObjectRefusals({ clock, logger: silentLogger });
  refusals.journalTo(async (type, o) => {
    raised.push(`${type}: ${o?.detail}`);
    return 1;
  });
  return { clock, raised, refusals };
}

test('one event per source per ten minutes; the next one says how many it stands for', () => {
  const { clock, raised, refusals } = setup();
  for (let i = 0; i < 1000; i++) refusals.report({ receiverId: 1, source: '203.0.113.7', account: `F${i}` });
  assert.equal(raised, [
    'new_object_refused: receiver 1: account F0 from 203.0.113.7 is over the new-object allowance',
  ]);
  clock.advance(10 * 60_000);
  refusals.report({ receiverId: 2, source: '203.0.113.7', account: 'AB' });
  assert.is(
    raised[1],
    'new_object_refused: receiver 2: account AB from 203.0.113.7 is over the new-object allowance, 999 more since the last event',
  );
});

test('a flood from many sources journals at most MAX_EVENTS_PER_INTERVAL events per ten minutes', () => {
  const { raised, refusals } = setup();
  for (let i = 0; i < 5000; i++)
    refusals.report({ receiverId: 1, source: `2001:db8:${i.toString(16)}::/64`, account: 'F1' });
  assert.is(raised.length, MAX_EVENTS_PER_INTERVAL);
});

test('journaled whatever internal_events holds', () => {
  assert.is(findInternalEvent([], 'new_object_refused')?.event_code, '421');
});

test.run();
