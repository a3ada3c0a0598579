/**
 * Ignorable startup events end to end: real ingest (group commit) with the tracker's eventFlags hook,
 * a real SQLite journal, and the outputs' own filter deciding what is forwarded.
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
import { StartupEventClassifier } from '../../src/tracker/startup-events.js';
import { startStore } from '../store/helpers/store-fixture.js';

const START = Date.UTC(2026, 2, 1, 12, 0, 0);
const S = 1000;

function cid(code: string, groupNo: string, zoneNo: string): DecodedEvent {
  return {
    protocol: 'ADM-CID', account: '1234', sequence: '0001', encrypted: false, eventClass: 'other', qualifier: 'E',
    code, groupNo, zoneNo, deviceTime: null, deviceTimeText: null,
  };
}

function session(connectedAt: number): SessionLog {
  return { id: null, objectId: null, connectedAt, remoteAddress: '192.0.2.7:5000', events: 0, bytesIn: 0, bytesOut: 0, closed: false };
}

function frame(events: DecodedEvent[], receivedAt: number, s: SessionLog): FrameItem {
  return {
    kind: 'frame', receiver: { id: 1, kind: 'tcp' }, transport: 'tcp', remoteAddress: '192.0.2.7:5000', receivedAt,
    session: s, raw: Buffer.from('frame'), events, linkTest: false, account: null, device: null,
  };
}

test('a matching event at a session start is journaled, flagged and not forwarded; the same later is forwarded', async () => {
  const fx = await startStore();
  try {
    const classifier = new StartupEventClassifier({
      gatewayStartedAt: START,
      triplets: () => [{ event_code: '305', group_no: '0', zone_no: 'a' }],
    });
    const bus = new TypedBus<IngestEvents>(silentLogger);
    const ingest = new EventIngest({
      store: fx.store, logger: silentLogger, bus,
      eventFlags: (row, item) => classifier.flagsFor(row, item.session?.connectedAt ?? null),
    });
    const connectedAt = START + 3600 * S;
    const s = session(connectedAt);
    const [startup] = await ingest.submit([frame([cid('305', '00', '00A'), cid('130', '01', '003')], connectedAt + 2 * S, s)]);
    const [later] = await ingest.submit([frame([cid('305', '00', '00A')], connectedAt + 61 * S, s)]);
    const stored = [...startup!.eventIds, ...later!.eventIds].map((id) => fx.store.events.get(id)!);
    assert.equal(stored.map((e) => [e.code, e.zoneNo, e.flags]), [['305', '00A', EVENT_FLAG_IGNORABLE_STARTUP], ['130', '003', 0], ['305', '00A', 0]]);
    const take = createEventFilter({ receivers: [], event_classes: [] });
    assert.equal(stored.map((e) => take(e)), ['ignorable startup event', null, null]);
  } finally {
    await fx.cleanup();
  }
});

test.run();
