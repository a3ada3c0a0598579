/** The MLR2 computer-port feed, read side: the layouts the codec writes decode back; garbage resyncs; over-long lines drop. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEARTBEAT, encodeContactId, encodeSiaBlock, encodeSiaFixed } from '../../../src/protocols/mlr2/codec.js';
import { decodeMlr2Line } from '../../../src/protocols/mlr2/decoder.js';
import { Mlr2Framer } from '../../../src/protocols/mlr2/framer.js';
import { handleMlr2Line } from '../../../src/protocols/mlr2/handler.js';

const route = { receiver: 1, line: 1 };
const bytes = (r: { ok: true; bytes: Buffer } | { ok: false; reason: string }): Buffer => {
  if (!r.ok) throw new Error(r.reason);
  return r.bytes;
};
const cid = bytes(encodeContactId(route, { account: '1234', qualifier: 'E', code: '130', group: '01', zone: '015' }));
const sia1 = bytes(encodeSiaFixed(route, { account: '12AB', code: 'BA', zone: '7' }));
const sia2 = bytes(encodeSiaBlock(route, { account: '00123456', code: 'FA', group: '2', zone: '12' }));
const body = (line: Buffer): Buffer => line.subarray(0, line.length - 1);

test('every layout the output codec writes decodes back to its fields', () => {
  assert.equal(decodeMlr2Line(body(cid)), {
    kind: 'cid',
    route: { receiver: '01', line: '1' },
    account: '1234',
    qualifier: 'E',
    code: '130',
    group: '01',
    zone: '015',
  });
  assert.equal(decodeMlr2Line(body(sia1)), {
    kind: 'sia',
    route: { receiver: '01', line: '1' },
    account: '12AB',
    code: 'BA',
    group: null,
    zone: '0007',
  });
  assert.equal(decodeMlr2Line(body(sia2)), {
    kind: 'sia',
    route: { receiver: '01', line: '1' },
    account: '00123456',
    code: 'FA',
    group: '2',
    zone: '12',
  });
  assert.equal(decodeMlr2Line(body(HEARTBEAT)), { kind: 'heartbeat', route: { receiver: '01', line: '1' } });
  assert.equal(decodeMlr2Line(Buffer.from('7012 OTHER FORMAT')), { kind: 'unknown', text: '7012 OTHER FORMAT' });
  assert.equal(decodeMlr2Line(Buffer.from([0x35, 0xff, 0x01])), {
    kind: 'malformed',
    reason: 'bytes outside printable ASCII',
  });
});

test('decisions: an event is ACKed with its journal fields, a heartbeat is a link test, a malformed line is NAKed', () => {
  const d = handleMlr2Line(body(cid));
  assert.equal([d.action, d.reply, d.heartbeat], ['ack', Buffer.from([0x06]), false]);
  assert.equal(d.events, [
    {
      protocol: 'ADM-CID',
      account: '1234',
      sequence: '',
      encrypted: false,
      eventClass: 'alarm',
      code: '130',
      deviceTime: null,
      deviceTimeText: null,
      receiver: '01',
      line: '1',
      qualifier: 'E',
      groupNo: '01',
      zoneNo: '015',
    },
  ]);
  const hb = handleMlr2Line(body(HEARTBEAT));
  assert.equal([hb.action, hb.events, hb.linkTest, hb.heartbeat], ['ack', [], true, true]);
  const unknown = handleMlr2Line(Buffer.from('7012 OTHER FORMAT'));
  assert.equal(
    [unknown.action, unknown.events[0]!.protocol, unknown.events[0]!.eventClass, unknown.events[0]!.text],
    ['ack', 'MLR2', 'other', '7012 OTHER FORMAT'],
  );
  const bad = handleMlr2Line(Buffer.from([0x01, 0x02]));
  assert.equal([bad.action, bad.reply], ['nak', Buffer.from([0x15])]);
});

test('a known type in a wrong layout is malformed (NAKed); only a type Vigil does not know is unknown (ACKed)', () => {
  const reason = (text: string): string => {
    const m = decodeMlr2Line(Buffer.from(text, 'latin1'));
    return m.kind === 'malformed' ? m.reason : m.kind;
  };
  assert.is(reason('5011 18884'), 'Contact ID line "5011 18884" is not in its layout 5RRLs18AAAAQXYZGGCCC');
  assert.is(
    reason('5011 181234e13001015'),
    'Contact ID line "5011 181234e13001015" is not in its layout 5RRLs18AAAAQXYZGGCCC',
  );
  assert.is(
    reason('3011      12ABBA007'),
    'SIA Protocol 1 line "3011      12ABBA007" is not in its layout 3RRLssssAAAAAAXXYYYY',
  );
  assert.is(
    reason('3011    1234567BA0007'),
    'SIA Protocol 1 line "3011    1234567BA0007" is not in its layout 3RRLssssAAAAAAXXYYYY',
  );
  assert.is(
    reason('S011[#00123456|NFA12'),
    'SIA Protocol 2 line "S011[#00123456|NFA12" is not in its layout SRRL[#AAAA|Nri1BA01]',
  );
  assert.is(reason('S011[#|NFA12]'), 'SIA Protocol 2 line "S011[#|NFA12]" is not in its layout SRRL[#AAAA|Nri1BA01]');
  assert.is(
    reason('1011           @   '),
    'heartbeat line "1011           @   " is not in its layout 1RRLsssssssssss@ssss',
  );
  assert.is(
    reason('1011           @     '),
    'heartbeat line "1011           @     " is not in its layout 1RRLsssssssssss@ssss',
  );
  assert.is(reason('1011'), 'heartbeat line "1011" is not in its layout 1RRLsssssssssss@ssss');
  // Protocol 1 without '@' (Sur-Gard open/close, 4/2...), BFSK, the receiver's own 'S' messages: types Vigil does not know.
  for (const text of [
    '1011      0012 C1128',
    '6011      1234BA0007',
    'S011 LINE CARD 2 TROUBLE',
    '8011123412341234123',
  ]) {
    assert.equal(decodeMlr2Line(Buffer.from(text)), { kind: 'unknown', text });
  }
  assert.is(handleMlr2Line(Buffer.from('5011 18884')).action, 'nak');
  assert.equal(handleMlr2Line(Buffer.from('5011 18884')).events, []);
});

test('framer: two messages in one chunk, one message in two chunks, filler between them', () => {
  const framer = new Mlr2Framer();
  const items = framer.push(Buffer.concat([cid, Buffer.from('\r\n'), sia1.subarray(0, 7)]));
  assert.equal(
    items.map((i) => i.raw.toString('latin1')),
    [cid.toString('latin1')],
  );
  const rest = framer.push(sia1.subarray(7));
  assert.equal(
    rest.map((i) => i.kind === 'frame' && i.body.toString('latin1')),
    [body(sia1).toString('latin1')],
  );
  assert.is(framer.discardedBytes, 0);
});

test('framer: garbage before a message is skipped and counted; the message is found', () => {
  const framer = new Mlr2Framer();
  const items = framer.push(Buffer.concat([Buffer.from([0xff, 0x33, 0x13, 0x80]), cid]));
  assert.equal(
    items.map((i) => i.kind === 'frame' && i.body.toString('latin1')),
    [body(cid).toString('latin1')],
  );
  assert.is(framer.discardedBytes, 4);
});

test('framer: an over-long line is dropped without buffering it, reported once at its DC4, and the next message is read', () => {
  const framer = new Mlr2Framer(64);
  assert.equal(framer.push(Buffer.alloc(100, 0x41)), []);
  assert.equal(framer.push(Buffer.alloc(100, 0x42)), []);
  const items = framer.push(Buffer.concat([Buffer.from('CCC\x14'), HEARTBEAT]));
  assert.equal(
    items.map((i) => (i.kind === 'rejected' ? i.reason : 'frame')),
    ['oversize', 'frame'],
  );
  assert.is(framer.discardedBytes, 203);
});

test.run();
