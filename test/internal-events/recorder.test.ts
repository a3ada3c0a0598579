import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TypedBus } from '../../src/core/bus.js';
import { silentLogger } from '../../src/core/logger.js';
import type { IngestEvents } from '../../src/ingest/types.js';
import { buildInternalEvent, canonicalHex } from '../../src/internal-events/catalog.js';
import { ingestJournal } from '../../src/internal-events/ingest-journal.js';
import { InternalEventRecorder, type InternalEventJournal } from '../../src/internal-events/recorder.js';
import { DEFAULT_INTERNAL_EVENTS } from '../../src/settings/internal-events.js';
import { INTERNAL_EVENT_TYPES, type InternalEventSettings } from '../../src/settings/schema.js';
import type { NewEvent } from '../../src/core/event-row.js';
import { startStore } from '../store/helpers/store-fixture.js';

const AT = Date.UTC(2026, 2, 1, 12, 0, 0);

test('every internal event type has a default entry with a Contact ID code', () => {
  assert.equal(
    DEFAULT_INTERNAL_EVENTS.map((e) => e.type),
    [...INTERNAL_EVENT_TYPES],
  );
});

test('canonicalHex: numeric value, upper case, padded to the Contact ID width', () => {
  assert.equal(
    [canonicalHex('a', 3), canonicalHex('00a', 3), canonicalHex('0F', 2), canonicalHex('1', 3)],
    ['00A', '00A', '0F', '001'],
  );
});

test('a gateway event: no receiver, no object, empty account (outputs send their own oid)', () => {
  const entry: InternalEventSettings = {
    type: 'gateway_started',
    classificator: 'E',
    event_code: '305',
    group_no: '0',
    zone_no: '0',
    name: 'Gateway started',
  };
  assert.equal(buildInternalEvent(entry, { type: 'gateway_started', at: AT, detail: 'version 0.1.0' }), {
    receivedAt: AT,
    receiverId: null,
    receiverKind: null,
    objectId: null,
    account: '',
    protocol: 'INTERNAL',
    encrypted: false,
    eventClass: 'internal',
    qualifier: 'E',
    code: '305',
    groupNo: '00',
    zoneNo: '000',
    text: 'Gateway started (version 0.1.0)',
    flags: 0,
    raw: Buffer.from('INTERNAL gateway_started E305 00 000', 'latin1'),
  });
});

test('journaled with the configured codes into the real journal and announced on the ingest bus', async () => {
  const fx = await startStore();
  try {
    const bus = new TypedBus<IngestEvents>(silentLogger);
    const announced: number[] = [];
    bus.on('event-stored', ({ id }) => announced.push(id));
    const entries: InternalEventSettings[] = [
      {
        type: 'receiver_failed',
        classificator: 'E',
        event_code: '330',
        group_no: '2',
        zone_no: '7',
        name: 'Receiver down',
      },
    ];
    const recorder = new InternalEventRecorder({
      journal: ingestJournal(() => fx.store.write.events, bus),
      entries: () => entries,
      clock: fx.clock,
      logger: silentLogger,
    });
    const id = await recorder.raise('receiver_failed', { detail: 'rx:tcp:1: EADDRINUSE' });
    const stored = fx.store.events.get(id!)!;
    assert.equal(
      [
        stored.protocol,
        stored.eventClass,
        stored.qualifier,
        stored.code,
        stored.groupNo,
        stored.zoneNo,
        stored.account,
        stored.receiverId,
        stored.text,
      ],
      ['INTERNAL', 'internal', 'E', '330', '02', '007', '', null, 'Receiver down (rx:tcp:1: EADDRINUSE)'],
    );
    assert.equal(announced, [id]);
  } finally {
    await fx.cleanup();
  }
});

test('a type with no entry in internal_events is not journaled', async () => {
  const appended: NewEvent[][] = [];
  const journal: InternalEventJournal = {
    append: async (batch) => (appended.push([...batch]), batch.map((_, i) => i + 1)),
  };
  const recorder = new InternalEventRecorder({
    journal,
    entries: () => [],
    clock: { now: () => AT },
    logger: silentLogger,
  });
  assert.is(await recorder.raise('gateway_started'), null);
  assert.equal(appended, []);
});

test('a device identity conflict is journaled with its default even when internal_events has no entry', async () => {
  const appended: NewEvent[][] = [];
  const journal: InternalEventJournal = {
    append: async (batch) => (appended.push([...batch]), batch.map((_, i) => i + 1)),
  };
  const recorder = new InternalEventRecorder({
    journal,
    entries: () => [],
    clock: { now: () => AT },
    logger: silentLogger,
  });
  assert.is(await recorder.raise('device_identity_conflict', { detail: 'UID 00A1 from 127.0.0.2: wrong proof' }), 1);
  assert.equal(
    appended.flat().map((e) => `${e.qualifier}${e.code} ${e.text}`),
    ['E421 Device identity conflict (UID 00A1 from 127.0.0.2: wrong proof)'],
  );
});

test('events that cannot be journaled are held and written first, in order, with their own times', async () => {
  let failing = true;
  const written: string[] = [];
  const journal: InternalEventJournal = {
    append: async (batch) => {
      if (failing) throw new Error('disk I/O error');
      written.push(...batch.map((e) => `${e.qualifier}${e.code}@${e.receivedAt - AT}`));
      return batch.map((_, i) => 100 + i);
    },
  };
  let now = AT;
  const recorder = new InternalEventRecorder({
    journal,
    entries: () => DEFAULT_INTERNAL_EVENTS,
    clock: { now: () => now },
    logger: silentLogger,
  });
  assert.is(await recorder.raise('store_trouble'), null);
  now += 5000;
  assert.is(await recorder.raise('receiver_failed'), null);
  assert.is(recorder.pendingCount(), 2);
  failing = false;
  now += 5000;
  assert.is(await recorder.raise('store_restored'), 102);
  assert.equal(written, ['E300@0', 'E330@5000', 'R300@10000']);
  assert.is(recorder.pendingCount(), 0);
});

test('what is held while the journal fails is bounded: the oldest are dropped', async () => {
  let failing = true;
  const written: string[] = [];
  const journal: InternalEventJournal = {
    append: async (batch) => {
      if (failing) throw new Error('readonly');
      written.push(...batch.map((e) => String(e.text)));
      return batch.map((_, i) => i);
    },
  };
  const recorder = new InternalEventRecorder({
    journal,
    entries: () => DEFAULT_INTERNAL_EVENTS,
    clock: { now: () => AT },
    logger: silentLogger,
    maxPending: 2,
  });
  for (const detail of ['1', '2', '3']) await recorder.raise('login_failed', { detail });
  failing = false;
  await recorder.retryPending();
  assert.equal(written, ['Login failed (2)', 'Login failed (3)']);
});

test.run();
