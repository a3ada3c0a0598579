import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dc09Framer, decodeDatagram, encodeFrame, type FramerItem } from '../../../src/protocols/dc09/frame.js';
import { isVigilError } from '../../../src/core/errors.js';

const NAK_BODY = '"NAK"0000R0L0A0[]_16:09:09,04-14-2015';
const NAK_FRAME = '\n3C830025"NAK"0000R0L0A0[]_16:09:09,04-14-2015\r';
const A = encodeFrame('"SIA-DCS"0001L0#1234[#1234|Nri1/BA01]_12:00:00,01-01-2026');
const B = encodeFrame('"ADM-CID"0002L0#1234[#1234|1401 01 015]');

function summary(items: FramerItem[]): string[] {
  return items.map((i) => (i.kind === 'frame' ? `frame:${i.body.toString('latin1')}` : `rejected:${i.reason}`));
}

test('encodeFrame writes LF, CRC, 0LLL, body and CR exactly (published NAK example)', () => {
  assert.is(encodeFrame(NAK_BODY).toString('latin1'), NAK_FRAME);
  assert.equal(encodeFrame(Buffer.from(NAK_BODY)), Buffer.from(NAK_FRAME, 'latin1'));
});

test('encodeFrame refuses a body longer than the 3-hex-digit length allows', () => {
  try {
    encodeFrame(`"NULL"${'x'.repeat(0x1000)}`);
    assert.unreachable('should throw');
  } catch (err) {
    assert.ok(isVigilError(err, 'FRAME_INVALID'));
  }
});

test('two frames in one chunk are both returned, in order, with exact bodies and raw bytes', () => {
  const items = new Dc09Framer().push(Buffer.concat([A, B]));
  assert.equal(summary(items), [`frame:${A.subarray(9, -1).toString()}`, `frame:${B.subarray(9, -1).toString()}`]);
  assert.equal(items[0]!.raw, A);
  assert.equal(items[1]!.raw, B);
});

test('one frame split across three chunks is returned once, when complete', () => {
  const framer = new Dc09Framer();
  assert.equal(framer.push(A.subarray(0, 5)), []);
  assert.equal(framer.push(A.subarray(5, 30)), []);
  assert.is(framer.buffered, 30);
  const items = framer.push(A.subarray(30));
  assert.equal(summary(items), [`frame:${A.subarray(9, -1).toString()}`]);
  assert.is(framer.buffered, 0);
});

test('frames fed one byte at a time are all found', () => {
  const framer = new Dc09Framer();
  const stream = Buffer.concat([A, B, A]);
  const found: FramerItem[] = [];
  for (const byte of stream) found.push(...framer.push(Buffer.from([byte])));
  assert.equal(
    found.map((i) => i.kind),
    ['frame', 'frame', 'frame'],
  );
  assert.equal(found[1]!.raw, B);
});

test('garbage before, between and after frames is skipped and counted', () => {
  const framer = new Dc09Framer();
  const noise = Buffer.from('hello\r\x00\xff');
  const items = framer.push(Buffer.concat([noise, A, noise, B, noise]));
  assert.equal(
    items.map((i) => i.kind),
    ['frame', 'frame'],
  );
  assert.is(framer.discardedBytes, noise.length * 3);
  assert.is(framer.buffered, 0);
});

test('a bad CRC is rejected without throwing and the next frame is still found', () => {
  const bad = Buffer.from(A);
  bad[1] = bad[1] === 0x30 ? 0x31 : 0x30; // change the first CRC digit
  const items = new Dc09Framer().push(Buffer.concat([bad, B]));
  assert.equal(summary(items), ['rejected:crc', `frame:${B.subarray(9, -1).toString()}`]);
  assert.equal(items[0]!.raw, bad);
});

test('a length field shorter than the body is rejected and the next frame is found', () => {
  const bad = Buffer.from(A);
  bad.write('0030', 5, 'latin1'); // body is longer than 0x30
  const items = new Dc09Framer().push(Buffer.concat([bad, B]));
  assert.equal(
    items.map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['length', 'frame'],
  );
  assert.equal(items[1]!.raw, B);
});

test('a length field longer than the body is rejected at the early CR instead of stalling the session', () => {
  const bad = Buffer.from(A);
  bad.write('0FF0', 5, 'latin1');
  const framer = new Dc09Framer();
  const items = framer.push(bad);
  assert.equal(
    items.map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['length'],
  );
  assert.is(framer.buffered, 0);
  assert.equal(
    framer.push(B).map((i) => i.kind),
    ['frame'],
  );
});

test('a frame cut short by the next LF is rejected and the next frame is found', () => {
  const truncated = A.subarray(0, 20);
  const items = new Dc09Framer().push(Buffer.concat([truncated, B]));
  assert.equal(
    items.map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['length', 'frame'],
  );
  assert.equal(items[0]!.raw, truncated);
});

test('a header with a non-hex character is a format rejection', () => {
  const bad = Buffer.from(A);
  bad[3] = 0x47; // 'G'
  const items = new Dc09Framer().push(Buffer.concat([bad, B]));
  assert.equal(
    items.map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['format', 'frame'],
  );
});

test('the length field must start with 0', () => {
  const bad = Buffer.from(A);
  bad[5] = 0x31;
  assert.equal(
    new Dc09Framer().push(bad).map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['format'],
  );
});

test('lower-case hex in the CRC and length fields is accepted', () => {
  const body = '"NULL"0000R0L0#ABC[]';
  const upper = encodeFrame(body).toString('latin1');
  const lower = `\n${upper.slice(1, 9).toLowerCase()}${body}\r`;
  assert.ok(/[a-f]/.test(lower.slice(1, 9)), 'fixture must contain a lower-case hex digit');
  assert.equal(
    new Dc09Framer().push(Buffer.from(lower, 'latin1')).map((i) => i.kind),
    ['frame'],
  );
});

test('a body that does not start with a quote is a format rejection', () => {
  const frame = encodeFrame('NULL"0000#ABC[]');
  assert.equal(
    new Dc09Framer().push(frame).map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['format'],
  );
});

test('a frame above maxBodyBytes is rejected as oversize and the framer resyncs', () => {
  const framer = new Dc09Framer(32);
  const big = encodeFrame(`"SIA-DCS"0001L0#1234[#1234|${'A'.repeat(64)}]`);
  const items = framer.push(Buffer.concat([big, encodeFrame('"NULL"0000#ABC[]')]));
  assert.equal(
    items.map((i) => (i.kind === 'frame' ? 'frame' : i.reason)),
    ['oversize', 'frame'],
  );
  assert.is(framer.buffered, 0);
});

test('the buffer never holds more than one incomplete frame', () => {
  const framer = new Dc09Framer(64);
  framer.push(Buffer.from('\n00000040"'));
  framer.push(Buffer.alloc(200, 0x41)); // no CR ever comes: rejected once the announced length is passed
  assert.ok(framer.buffered <= 64 + 10, `buffered ${framer.buffered}`);
  framer.push(Buffer.from('\n0000003'));
  assert.is(framer.buffered, 8);
  framer.reset();
  assert.is(framer.buffered, 0);
});

test('decodeDatagram accepts exactly one frame', () => {
  const item = decodeDatagram(A);
  assert.is(item.kind, 'frame');
  assert.equal(item.raw, A);
});

test('decodeDatagram rejects trailing bytes, leading bytes, two frames and a bad CRC', () => {
  assert.equal(decodeDatagram(Buffer.concat([A, Buffer.from('x')])), {
    kind: 'rejected',
    reason: 'length',
    raw: Buffer.concat([A, Buffer.from('x')]),
  });
  assert.is(decodeDatagram(Buffer.concat([Buffer.from('x'), A])).kind, 'rejected');
  assert.is(decodeDatagram(Buffer.concat([A, B])).kind, 'rejected');
  const bad = Buffer.from(A);
  bad[2] = bad[2] === 0x30 ? 0x31 : 0x30;
  const item = decodeDatagram(bad);
  assert.is(item.kind === 'rejected' && item.reason, 'crc');
  assert.is(decodeDatagram(Buffer.alloc(0)).kind, 'rejected');
  assert.is(decodeDatagram(A.subarray(0, A.length - 1)).kind, 'rejected');
});

test.run();
