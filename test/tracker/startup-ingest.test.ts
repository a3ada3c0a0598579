/**
 * Ignorable startup events end to end: real ingest (group commit) with the tracker's startup rules,
 * flagged by the journal writer where it decides each row's object, a real SQLite journal, and the
 * outputs' own filter deciding what is forwarded.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedBus } from '../../src/core/bus.js';
import { silentLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import type { FrameItem, IngestEvents, SessionLog } from '../../src/ingest/types.js';
import { createEventFilter } from '../../src/outputs/event-filter.js';
import type { DecodedEvent } from '../../src/protocols/dc09/handler.js';
import { EVENT_FLAG_IGNORABLE_STARTUP } from '../../src/store/types.js';
import type { StartupRules } from '../../src/writer/startup-events.js';
import { startStoreWithWriter } from '../store/helpers/store-fixture.js';

const START = Date.UTC(2026, 2, 1, 12, 0, 0);
const S = 1000;

function cid(code: string, groupNo: string, zoneNo: string): DecodedEvent {
  return {
    protocol: 'ADM-CID',
    account: '1234',
    sequence: '0001',
    encrypted: false,
    eventClass: 'other',
    qualifier: 'E',
    code,
    groupNo,
    zoneNo,
    deviceTime: null,
    deviceTimeText: null,
  };
}

function session(connectedAt: number): SessionLog {
  return {
    id: null,
    objectId: null,
    connectedAt,
    remoteAddress: '192.0.2.7:5000',
    events: 0,
    bytesIn: 0,
    bytesOut: 0,
    closed: false,
  };
}

function frame(events: DecodedEvent[], receivedAt: number, s: SessionLog): FrameItem {
  return {
    kind: 'frame',
    receiver: { id: 1, kind: 'tcp' },
    transport: 'tcp',
    remoteAddress: '192.0.2.7:5000',
    receivedAt,
    session: s,
    raw: Buffer.from('frame'),
    events,
    linkTest: false,
    account: null,
    device: null,
  };
}

/** A UDP datagram of account 1234 on receiver 2: no session, its object decided by the writer. */
function datagram(events: DecodedEvent[], receivedAt: number): FrameItem {
  return {
    kind: 'frame',
    receiver: { id: 2, kind: 'udp' },
    transport: 'udp',
    remoteAddress: '192.0.2.8:5000',
    receivedAt,
    session: null,
    raw: Buffer.from('datagram'),
    events,
    linkTest: events.length === 0,
    account: '1234',
    device: null,
  };
}

const rules = (): StartupRules => ({
  gatewayStartedAt: START,
  triplets: [{ event_code: '305', group_no: '0', zone_no: 'a' }],
});

test('a matching event at a session start is journaled, flagged and not forwarded; the same later is forwarded', async () => {
  const fx = await startStoreWithWriter();
  try {
    const bus = new TypedBus<IngestEvents>(silentLogger);
    const ingest = new EventIngest({ writer: fx.writer, logger: silentLogger, bus, startupRules: rules });
    const connectedAt = START + 3600 * S;
    const s = session(connectedAt);
    const [startup] = await ingest.submit([
      frame([cid('305', '00', '00A'), cid('130', '01', '003')], connectedAt + 2 * S, s),
    ]);
    const [later] = await ingest.submit([frame([cid('305', '00', '00A')], connectedAt + 61 * S, s)]);
    const stored = [...startup!.eventIds, ...later!.eventIds].map((id) => fx.store.events.get(id)!);
    assert.equal(
      stored.map((e) => [e.code, e.zoneNo, e.flags]),
      [
        ['305', '00A', EVENT_FLAG_IGNORABLE_STARTUP],
        ['130', '003', 0],
        ['305', '00A', 0],
      ],
    );
    const take = createEventFilter({ receivers: [], event_classes: [] });
    assert.equal(
      stored.map((e) => take(e)),
      ['ignorable startup event', null, null],
    );
  } finally {
    await fx.cleanup();
  }
});

test('datagrams: the session of a new account starts at its first datagram, a silence of 2 min starts another; the bus row carries the stored flag', async () => {
  const fx = await startStoreWithWriter();
  try {
    const bus = new TypedBus<IngestEvents>(silentLogger);
    const announced: number[] = [];
    bus.on('event-stored', ({ event }) => announced.push(event.flags ?? 0));
    const ingest = new EventIngest({ writer: fx.writer, logger: silentLogger, bus, startupRules: rules });
    const t = START + 3600 * S; // long after the gateway started
    const at = [t, t + 30 * S, t + 90 * S, t + 300 * S];
    const ids: number[] = [];
    for (const when of at.slice(0, 3))
      ids.push(...(await ingest.submit([datagram([cid('305', '00', '00A')], when)]))[0]!.eventIds);
    // NULL link tests keep the device talking: no new session at t + 150 s.
    await ingest.submit([datagram([], t + 100 * S)]);
    ids.push(...(await ingest.submit([datagram([cid('305', '00', '00A')], t + 150 * S)]))[0]!.eventIds);
    // Silent from t + 150 s to t + 300 s (> 2 min): a new "session".
    ids.push(...(await ingest.submit([datagram([cid('305', '00', '00A')], at[3]!)]))[0]!.eventIds);
    const flags = ids.map((id) => fx.store.events.get(id)!.flags);
    const F = EVENT_FLAG_IGNORABLE_STARTUP;
    assert.equal(
      flags,
      [F, F, 0, 0, F],
      'first datagram ever, within 60 s of it, after, kept alive, after 2.5 min of silence',
    );
    assert.equal(announced, flags, 'the rows announced on the bus carry the flags the writer stored');
    const objects = new Set(ids.map((id) => fx.store.events.get(id)!.objectId));
    assert.is(objects.size, 1, 'one object, registered by the first datagram');
  } finally {
    await fx.cleanup();
  }
});

test('without startup rules nothing is flagged', async () => {
  const fx = await startStoreWithWriter();
  try {
    const ingest = new EventIngest({ writer: fx.writer, logger: silentLogger });
    const [r] = await ingest.submit([datagram([cid('305', '00', '00A')], START + 1 * S)]);
    assert.is(fx.store.events.get(r!.eventIds[0]!)!.flags, 0);
  } finally {
    await fx.cleanup();
  }
});

test.run();
