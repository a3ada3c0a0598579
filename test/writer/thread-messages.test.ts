/** The writer thread's messages: a batch and its answer cross as tuples, and come back out exactly as they went in. */
import { serialize } from 'node:v8';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchEncoder } from '../../src/ingest/batch-encoder.js';
import type { IngestSink } from '../../src/ingest/types.js';
import type { WireBatch, WireResult } from '../../src/writer/wire.js';
import {
  isDone,
  isWrite,
  packDone,
  packWrite,
  unpackDone,
  unpackWrite,
  type WriterReply,
  type WriterRequest,
} from '../../src/writer/thread-messages.js';
import type { ObjectRecord } from '../../src/store/types.js';
import { event, frame, hello, sessionLog } from '../ingest/helpers/items.js';

const batch = (startup: WireBatch['startup']): WireBatch => ({
  ops: [
    {
      kind: 'frame',
      receiverId: 1,
      receiverKind: 'tcp',
      transport: 'tcp',
      remoteAddress: '192.0.2.1:1',
      receivedAt: 6,
      session: { key: 4, id: null, connectedAt: 5, remoteAddress: '192.0.2.1:1' },
      account: '1234',
      linkTest: false,
      quirks: 0,
      device: null,
      raw: [0, 3],
      rows: [[null, null, '1234', 'R1', 'L1', '0001', 'SIA-DCS', false, 'alarm', null, 'BA', '1', '01', null, 0]],
    },
  ],
  raw: new Uint8Array([1, 2, 3]),
  sessionLogCount: 5,
  startup,
});

/** Every object in `value` that is not an array or a typed array: what structured clone must describe property by property. */
function namedObjects(value: unknown): number {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return 0;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + namedObjects(v), 0);
  return 1 + Object.values(value).reduce((n: number, v) => n + namedObjects(v), 0);
}

test('a batch round-trips through a structured clone, with and without startup rules', () => {
  const triplets = [{ event_code: '602', group_no: '00', zone_no: '000' }];
  for (const startup of [
    null,
    { gatewayStartedAt: 1_700_000_000_000, triplets: [] },
    { gatewayStartedAt: 7, triplets },
  ]) {
    const sent = batch(startup);
    const request = structuredClone(packWrite(9, sent));
    assert.ok(isWrite(request));
    assert.is(request[0], 9);
    assert.equal(unpackWrite(request), sent);
  }
});

test('an ordinary batch and its answer carry no object with named fields across', () => {
  assert.is(namedObjects(packWrite(1, batch({ gatewayStartedAt: 1, triplets: [] }))), 0);
  const result: WireResult = {
    objectIds: [3, null],
    eventIds: 41,
    eventCount: 2,
    helloObjects: [],
    registered: [],
    opened: [[4, 17, 3]],
    adopted: [[3, '1234']],
    flagged: [[1, 4]],
  };
  assert.is(namedObjects(packDone(1, result)), 0);
});

/**
 * The same value with every array rebuilt by push (packed elements). Structured clone writes a
 * holey array (`new Array(n)`, even when filled) as a sparse one, index by index as named
 * properties; a packed one as a dense run of values. Equal bytes mean no array was holey.
 */
function packedCopy(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const copy: unknown[] = [];
  for (const v of value) copy.push(packedCopy(v));
  return copy;
}

test('a batch the encoder builds crosses as dense arrays only, never sparse ones', () => {
  const sink: IngestSink = { committed: () => {}, failed: () => {} };
  const session = sessionLog();
  const items = [
    frame('1234', { events: [event('1234'), event('1234', 'BR', '02'), event('1234', 'TA', '03')], session }),
    frame(null, { linkTest: true }),
    hello('AB12', '5678', { session }),
    frame('5678', { events: [event('5678')] }),
  ];
  const sent = new BatchEncoder({}).encode([
    { kind: 'items', items, sink, at: 0 },
    { kind: 'close', session, at: 9 },
  ]);
  const request = packWrite(3, sent.batch);
  assert.equal(serialize(request), serialize(packedCopy(request)));
  const result: WireResult = {
    objectIds: [3, null, 4, 5],
    eventIds: [41, 43, 44, 45],
    eventCount: 4,
    helloObjects: [],
    registered: [],
    opened: [],
    adopted: [],
    flagged: [],
  };
  assert.equal(serialize(packDone(3, result)), serialize(packedCopy(packDone(3, result))));
});

test('an answer round-trips, objects of hellos and registrations included', () => {
  const object = { id: 3, uid: 'AB12', account: '1234', name: null } as unknown as ObjectRecord;
  const result: WireResult = {
    objectIds: [3, null],
    eventIds: [41, 43],
    eventCount: 2,
    helloObjects: [object],
    registered: [object],
    opened: [[4, 17, 3]],
    adopted: [[3, '1234']],
    flagged: [[1, 4]],
  };
  const reply = structuredClone(packDone(12, result));
  assert.ok(isDone(reply));
  assert.is(reply[0], 12);
  assert.equal(unpackDone(reply), result);
});

test('the other messages are objects with a type, never taken for a batch or an answer', () => {
  const requests: WriterRequest[] = [{ type: 'ping', seq: 1 }, { type: 'close' }];
  const replies: WriterReply[] = [
    { type: 'ready' },
    { type: 'pong', seq: 1 },
    { type: 'failed', seq: 2, error: 'disk', code: 'STORE_FAILURE' },
    { type: 'closed', error: null },
  ];
  for (const r of requests) assert.not.ok(isWrite(r));
  for (const r of replies) assert.not.ok(isDone(r));
});

test.run();
