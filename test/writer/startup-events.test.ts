import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENT_FLAG_IGNORABLE_STARTUP } from '../../src/store/types.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { StartupEventClassifier, matchesTriplet } from '../../src/writer/startup-events.js';

const START = Date.UTC(2026, 2, 1, 12, 0, 0);
const S = 1000;
const TRIPLETS = [{ event_code: '305', group_no: '0', zone_no: '0A' }];

function cid(code: string, groupNo: string, zoneNo: string, at: number, objectId = 1): NewEvent {
  return {
    receivedAt: at,
    receiverId: 1,
    receiverKind: 'tcp',
    objectId,
    account: '1234',
    protocol: 'ADM-CID',
    encrypted: false,
    eventClass: 'other',
    qualifier: 'E',
    code,
    groupNo,
    zoneNo,
    raw: Buffer.alloc(0),
  };
}

function classifier(): StartupEventClassifier {
  return new StartupEventClassifier({ gatewayStartedAt: START, triplets: () => TRIPLETS });
}

test('triplets compare numerically as hex: "0A" == "00a", "0" == "00"', () => {
  assert.ok(matchesTriplet(cid('305', '00', '00a', 0), TRIPLETS));
  assert.ok(matchesTriplet(cid('0305', '0', '10', 0), [{ event_code: '305', group_no: '00', zone_no: '010' }]));
  assert.not.ok(matchesTriplet(cid('305', '00', '00B', 0), TRIPLETS));
  assert.not.ok(matchesTriplet(cid('306', '00', '00A', 0), TRIPLETS));
  assert.not.ok(matchesTriplet(cid('305', '01', '00A', 0), TRIPLETS));
});

test('only Contact ID events match: SIA codes are letters, not numbers', () => {
  const sia = { ...cid('BA', '00', '00A', 0), protocol: 'SIA-DCS' };
  assert.not.ok(matchesTriplet(sia, [{ event_code: 'BA', group_no: '0', zone_no: 'A' }]));
});

test('an event without group or zone matches nothing', () => {
  assert.not.ok(matchesTriplet({ ...cid('305', '00', '00A', 0), zoneNo: null }, TRIPLETS));
});

test('a matching event within 60 s of the gateway start is flagged; from 60 s on it is not', () => {
  const c = classifier();
  // The connection opened 10 min before the gateway start record: only the gateway window counts.
  assert.is(c.flagsFor(cid('305', '00', '00A', START + 59_999), START - 600 * S), EVENT_FLAG_IGNORABLE_STARTUP);
  assert.is(c.flagsFor(cid('305', '00', '00A', START + 60 * S), START - 600 * S), 0);
  assert.is(c.flagsFor(cid('306', '00', '00A', START + 1 * S), START - 600 * S), 0, 'not a configured triplet');
});

test('a matching event within 60 s after its TCP connection opened is flagged', () => {
  const c = classifier();
  const connectedAt = START + 3600 * S;
  assert.is(c.flagsFor(cid('305', '00', '00A', connectedAt + 5 * S), connectedAt), EVENT_FLAG_IGNORABLE_STARTUP);
  assert.is(c.flagsFor(cid('305', '00', '00A', connectedAt + 61 * S), connectedAt), 0);
});

test('without a connection (UDP): the first message, or the first after 2 min of silence, opens a session', () => {
  const c = classifier();
  const t = START + 3600 * S;
  assert.is(c.flagsFor(cid('305', '00', '00A', t), null), EVENT_FLAG_IGNORABLE_STARTUP, 'first message ever');
  c.seen(1, t + 50 * S); // a NULL link test
  c.seen(1, t + 100 * S);
  assert.is(c.flagsFor(cid('305', '00', '00A', t + 150 * S), null), 0, 'the device kept talking: same session');
  assert.is(
    c.flagsFor(cid('305', '00', '00A', t + 271 * S), null),
    EVENT_FLAG_IGNORABLE_STARTUP,
    '2 min of silence: new session',
  );
  assert.is(c.flagsFor(cid('305', '00', '00A', t + 280 * S, 2), null), EVENT_FLAG_IGNORABLE_STARTUP, 'another object');
});

test('the configured list is read at every event: a settings change applies at once', () => {
  let triplets = TRIPLETS;
  const c = new StartupEventClassifier({ gatewayStartedAt: START, triplets: () => triplets });
  assert.is(c.flagsFor(cid('305', '00', '00A', START), START), EVENT_FLAG_IGNORABLE_STARTUP);
  triplets = [];
  assert.is(c.flagsFor(cid('305', '00', '00A', START), START), 0);
});

test.run();
