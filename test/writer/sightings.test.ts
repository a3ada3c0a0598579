/** collectSightings: what the writer stores as last_seen and the main thread announces as object-seen. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectSightings } from '../../src/writer/sightings.js';
import type { WireFrame, WireHello, WireOp } from '../../src/writer/wire.js';

const base = { receiverId: 1, receiverKind: 'tcp' as const, transport: 'tcp', session: null };

function frame(at: number, remote: string, options: Partial<WireFrame> = {}): WireFrame {
  return {
    ...base,
    kind: 'frame',
    remoteAddress: remote,
    receivedAt: at,
    account: '1234',
    linkTest: false,
    quirks: 0,
    device: null,
    raw: [0, 0],
    rows: [],
    ...options,
  };
}

test("once per object, latest time, ping if any, last address; a related object's frame is a sighting of its device first", () => {
  const hello: WireHello = {
    ...base,
    kind: 'hello',
    remoteAddress: 'h:1',
    receivedAt: 5,
    uid: 'AB',
    account: null,
    hwId: null,
    firmware: null,
    adopt: false,
  };
  const device = { objectId: 7, uid: 'AB', account: '1234' };
  const ops: WireOp[] = [
    hello,
    frame(10, 'a:1', { linkTest: true }),
    {
      kind: 'close',
      session: { key: 1, id: 3, connectedAt: 0, remoteAddress: 'x' },
      at: 11,
      events: 0,
      bytesIn: 0,
      bytesOut: 0,
    },
    frame(20, 'b:2', { device, account: '9999' }),
    frame(15, 'c:3'),
    frame(30, 'd:4', { account: null }),
  ];
  const seen = collectSightings(ops, [7, 8, 9, 8, null]);
  assert.equal(
    [...seen],
    [
      [7, { at: 20, ping: false, remote: 'b:2' }],
      [8, { at: 15, ping: true, remote: 'c:3' }],
      [9, { at: 20, ping: false, remote: 'b:2' }],
    ],
  );
});

test.run();
