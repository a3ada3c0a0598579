/** packOps / unpackOps: a journal batch's ops survive the packed form (and a structured clone) exactly, whatever is absent or null. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { packOps, unpackOps } from '../../src/writer/wire-pack.js';
import type { WireOp, WireRow } from '../../src/writer/wire.js';
import { wireRow } from '../../src/store/journal-columns.js';

const row = (code: string, flags = 0): WireRow =>
  wireRow({
    receivedAt: 1_700_000_000_000,
    receiverId: 1,
    receiverKind: 'tcp',
    deviceTime: 1_700_000_000_000,
    deviceTimeText: '_12:00:00,11-23-2026',
    account: '1234',
    dc09Receiver: 'R1',
    dc09Line: 'L1',
    sequence: '0001',
    protocol: 'SIA-DCS',
    encrypted: false,
    eventClass: 'alarm',
    qualifier: null,
    code,
    groupNo: '01',
    zoneNo: '003',
    text: null,
    flags,
    raw: new Uint8Array(0),
  });
const session = { key: 4, id: 17, connectedAt: 1_700_000_000_000, remoteAddress: '127.0.0.1:4000' };

const ops: WireOp[] = [
  {
    kind: 'hello',
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '192.0.2.1:1',
    receivedAt: 5,
    session,
    uid: 'AB12',
    account: null,
    hwId: 'HW',
    firmware: null,
    adopt: true,
  },
  {
    kind: 'frame',
    receiverId: 1,
    receiverKind: 'tcp',
    transport: 'tcp',
    remoteAddress: '192.0.2.1:1',
    receivedAt: 6,
    session: { ...session, id: null },
    account: '1234',
    linkTest: false,
    quirks: 5,
    device: { objectId: 9, uid: 'AB12', account: '' },
    raw: [0, 42],
    rows: [row('BA'), row('BR', 4)],
  },
  {
    kind: 'frame',
    receiverId: 2,
    receiverKind: 'udp',
    transport: 'udp',
    remoteAddress: '[::1]:5',
    receivedAt: 7,
    session: null,
    account: null,
    linkTest: true,
    quirks: 0,
    device: null,
    raw: [0, 0],
    rows: [],
  },
  { kind: 'close', session, at: 8, events: 3, bytesIn: 120, bytesOut: 40 },
  {
    kind: 'hello',
    receiverId: 3,
    receiverKind: 'com',
    transport: 'serial',
    remoteAddress: '/dev/ttyUSB0',
    receivedAt: 9,
    session: null,
    uid: 'CD',
    account: '5678',
    hwId: null,
    firmware: '1.2',
    adopt: false,
  },
];

test('every op kind round-trips, through a structured clone as postMessage does', () => {
  assert.equal(unpackOps(structuredClone(packOps(ops))), ops);
});

test('the packed form is numbers and strings only: no object with named fields crosses', () => {
  const [numbers, strings] = packOps(ops);
  assert.ok(numbers instanceof Float64Array, 'the numbers are one typed array (transferred)');
  for (const value of strings) assert.type(value, 'string');
});

test('a string the batch repeats crosses once', () => {
  const [, strings] = packOps(ops);
  assert.equal(strings.length, new Set(strings).size);
  assert.is(strings.filter((s) => s === 'SIA-DCS').length, 1);
});

test('an empty batch packs to nothing; an unknown op is refused, not guessed', () => {
  assert.equal(unpackOps(packOps([])), []);
  assert.throws(() => unpackOps([Float64Array.of(7, 1, 2), []]), /unknown op 7/);
});

test.run();
