/**
 * The DC-09 tolerances (docs/dc09.md "Tolerances") over the corpus of real frames (corpus.ts, each with its
 * source): accepted with their quirks marked when switched on, refused as by the letter of the standard when off,
 * replies in the panel's own form, and noise never turned into a frame.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  Dc09Framer,
  decodeDatagram,
  encodeFrame,
  reframe,
  type FrameTolerances,
  type FramerItem,
} from '../../../src/protocols/dc09/frame.js';
import { handleFrame } from '../../../src/protocols/dc09/handler.js';
import { parseMessage } from '../../../src/protocols/dc09/message.js';
import { CORPUS, PYRONIX_ACK, type CorpusFrame } from './corpus.js';
import { bitwiseCrc, ctx, latin1, prng } from './fixtures.js';

const ALL: FrameTolerances = { binaryCrc: true, crCounted: true, trailingBytes: true };
const MESSAGE_ALL = { emptyLine: true, textAccount: true };
const FRAME_QUIRKS = new Set(['binary-crc', 'cr-counted', 'trailing-bytes']);

function frameOf(item: FramerItem): Extract<FramerItem, { kind: 'frame' }> {
  if (item.kind !== 'frame') throw new Error(`expected a frame, got rejected: ${item.reason}`);
  return item;
}

/** The frame without whatever followed its CR (what a TCP stream hands the framer as the frame). */
function stripped(c: CorpusFrame): Buffer {
  return c.wire.subarray(0, c.wire.lastIndexOf(0x0d) + 1);
}

for (const c of CORPUS) {
  test(`corpus "${c.name}" (${c.source}): one datagram, decoded with its quirks and the exact ACK`, () => {
    const frame = frameOf(decodeDatagram(c.wire, 4096, ALL));
    const decision = handleFrame(frame.body, ctx({ tolerances: MESSAGE_ALL }));
    assert.is(decision.action, 'ack', decision.reason);
    const quirks = [...(frame.quirks ?? []), ...(decision.message?.quirks ?? [])];
    assert.equal(quirks.sort(), [...c.quirks].sort());
    assert.is(latin1(decision.reply), latin1(encodeFrame(c.ackBody)));
    if (c.event === null) {
      assert.is(decision.linkTest, true);
      assert.equal(decision.events, []);
      return;
    }
    const [e] = decision.events;
    assert.is(decision.events.length, 1);
    assert.equal([e!.account, e!.protocol, e!.code], [c.event.account, c.event.protocol, c.event.code]);
    assert.is(e!.zoneNo, c.event.zone);
    assert.is(e!.groupNo, c.event.group);
    assert.is(e!.qualifier, c.event.qualifier);
  });

  if (c.quirks.length > 0) {
    test(`corpus "${c.name}": with its tolerances off it is refused as today`, () => {
      const item = decodeDatagram(c.wire, 4096, {});
      if (c.quirks.some((q) => FRAME_QUIRKS.has(q))) {
        assert.is(item.kind, 'rejected');
        return;
      }
      const decision = handleFrame(frameOf(item).body, ctx());
      assert.is(decision.action, 'duh');
    });
  }
}

test('the published Pyronix NULL gets byte for byte the ACK a working receiver sent (home-assistant/core #180511)', () => {
  const pyronix = CORPUS.find((c) => c.source.includes('#180511'))!;
  const decision = handleFrame(frameOf(decodeDatagram(pyronix.wire)).body, ctx());
  assert.is(latin1(decision.reply), latin1(PYRONIX_ACK));
});

test('the whole corpus in one TCP chunk: every frame, in order (trailing NULs are noise between frames)', () => {
  const framer = new Dc09Framer(undefined, ALL);
  const items = framer.push(Buffer.concat(CORPUS.map((c) => c.wire)));
  assert.equal(
    items.map((i) => i.kind),
    CORPUS.map(() => 'frame'),
  );
  assert.equal(
    items.map((i) => latin1(i.raw)),
    CORPUS.map((c) => latin1(stripped(c))),
  );
});

test('the whole corpus one byte at a time: every frame, in order', () => {
  const framer = new Dc09Framer(undefined, ALL);
  const wire = Buffer.concat(CORPUS.map((c) => c.wire));
  const items: FramerItem[] = [];
  for (let i = 0; i < wire.length; i++) items.push(...framer.push(wire.subarray(i, i + 1)));
  assert.equal(
    items.map((i) => latin1(i.raw)),
    CORPUS.map((c) => latin1(stripped(c))),
  );
  assert.is(framer.buffered, 0);
});

test('a binary-CRC frame split right after its CRC bytes is still one frame', () => {
  const trikdis = CORPUS.find((c) => c.quirks.includes('binary-crc'))!;
  const framer = new Dc09Framer(undefined, ALL);
  assert.equal(framer.push(trikdis.wire.subarray(0, 3)), []);
  const [item] = framer.push(trikdis.wire.subarray(3));
  assert.equal(frameOf(item!).quirks, ['binary-crc']);
});

test('each frame tolerance is separate: binary CRC, CR counted and trailing bytes each need their own switch', () => {
  const binary = CORPUS.find((c) => c.quirks.includes('binary-crc'))!;
  const counted = CORPUS.find((c) => c.quirks.includes('cr-counted'))!;
  const padded = CORPUS.find((c) => c.quirks.includes('trailing-bytes'))!;
  assert.is(decodeDatagram(binary.wire, 4096, { crCounted: true, trailingBytes: true }).kind, 'rejected');
  assert.is(decodeDatagram(counted.wire, 4096, { binaryCrc: true, trailingBytes: true }).kind, 'rejected');
  assert.is(decodeDatagram(padded.wire, 4096, { binaryCrc: true, crCounted: true }).kind, 'rejected');
  assert.is(decodeDatagram(binary.wire, 4096, { binaryCrc: true }).kind, 'frame');
  assert.is(decodeDatagram(counted.wire, 4096, { crCounted: true }).kind, 'frame');
});

test('a binary CRC and a counted CR together are recognised', () => {
  const body = Buffer.from('"SIA-DCS"0001L0#1234[#1234|NBA1]', 'latin1');
  const crc = bitwiseCrc(Buffer.concat([body, Buffer.from('\r')]));
  const length = (body.length + 1).toString(16).toUpperCase().padStart(3, '0');
  const wire = Buffer.concat([
    Buffer.from([0x0a, crc >>> 8, crc & 0xff]),
    Buffer.from(`0${length}`),
    body,
    Buffer.from('\r'),
  ]);
  assert.equal(frameOf(decodeDatagram(wire, 4096, ALL)).quirks, ['binary-crc', 'cr-counted']);
  assert.is(latin1(frameOf(decodeDatagram(wire, 4096, ALL)).body), latin1(body));
});

test("replies take the panel's form: binary CRC, counted CR, both; checked with an independent CRC", () => {
  const ack = encodeFrame('"ACK"0002R1L1#9413[]');
  const body = Buffer.from('"ACK"0002R1L1#9413[]', 'latin1');
  const withCr = Buffer.concat([body, Buffer.from('\r')]);
  const crc = bitwiseCrc(body);
  const crcCr = bitwiseCrc(withCr);
  const hex = (n: number, w: number): string => n.toString(16).toUpperCase().padStart(w, '0');
  assert.equal(
    reframe(ack, { binaryCrc: true }),
    Buffer.concat([
      Buffer.from([0x0a, crc >>> 8, crc & 0xff]),
      Buffer.from(`0${hex(body.length, 3)}`),
      body,
      Buffer.from('\r'),
    ]),
  );
  assert.is(
    latin1(reframe(ack, { crCounted: true })),
    `\n${hex(crcCr, 4)}0${hex(body.length + 1, 3)}${latin1(body)}\r`,
  );
  assert.equal(
    reframe(ack, { binaryCrc: true, crCounted: true }),
    Buffer.concat([Buffer.from([0x0a, crcCr >>> 8, crcCr & 0xff]), Buffer.from(`0${hex(body.length + 1, 3)}`), withCr]),
  );
  assert.is(reframe(ack, {}), ack);
  // What the panel's own framing reads back: the tolerant framer takes each form as that form.
  assert.equal(frameOf(decodeDatagram(reframe(ack, { binaryCrc: true }), 4096, ALL)).quirks, ['binary-crc']);
  assert.equal(frameOf(decodeDatagram(reframe(ack, { crCounted: true }), 4096, ALL)).quirks, ['cr-counted']);
});

test('trailing bytes: NUL, CR and space are padding; anything else (or a second frame) still refuses the datagram', () => {
  const frame = encodeFrame('"NULL"0001L0#1234[]');
  for (const pad of [[0], [0, 0, 0], [0x0d], [0x20, 0]]) {
    assert.equal(frameOf(decodeDatagram(Buffer.concat([frame, Buffer.from(pad)]), 4096, ALL)).quirks, [
      'trailing-bytes',
    ]);
  }
  for (const tail of [Buffer.from('x'), Buffer.from([0, 0x41]), frame]) {
    assert.is(decodeDatagram(Buffer.concat([frame, tail]), 4096, ALL).kind, 'rejected');
  }
});

test('L without digits: echoed as a bare L; refused (DUH) with the tolerance off', () => {
  const on = parseMessage(Buffer.from('"SIA-DCS"0001L#1234[#1234|NBA1]'), MESSAGE_ALL);
  assert.equal(on.kind === 'message' && [on.line, on.account, on.quirks], ['', '1234', ['empty-line']]);
  const off = handleFrame(Buffer.from('"SIA-DCS"0001L#1234[#1234|NBA1]'), ctx({ tolerances: { emptyLine: false } }));
  assert.is(off.action, 'duh');
  assert.is(latin1(off.reply), latin1(encodeFrame('"DUH"0001[]')));
});

test('text account (constructed frame: no public capture found): journaled as sent only with the switch', () => {
  const body = Buffer.from('"SIA-DCS"0005L0#SHOP12[#SHOP12|Nri1/BA01]');
  const on = handleFrame(body, ctx({ tolerances: { textAccount: true } }));
  assert.is(on.action, 'ack');
  assert.is(latin1(on.reply), latin1(encodeFrame('"ACK"0005L0#SHOP12[]')));
  assert.equal([on.events[0]!.account, on.message!.quirks], ['SHOP12', ['text-account']]);
  const off = handleFrame(body, ctx());
  assert.is(off.action, 'duh');
  // Letters and digits only: an account that could break a reply's framing stays refused.
  for (const account of ['SHOP-1', 'AB', 'ÄBC1', '12345678901234567']) {
    const d = handleFrame(
      Buffer.from(`"SIA-DCS"0005L0#${account}[#1234|NBA1]`, 'latin1'),
      ctx({ tolerances: { textAccount: true } }),
    );
    assert.is(d.action, 'duh', account);
  }
  // An account only in the data block.
  const inData = handleFrame(Buffer.from('"SIA-DCS"0006L0[#SHOP12|NBA1]'), ctx({ tolerances: { textAccount: true } }));
  assert.equal([inData.action, inData.events[0]?.account, inData.message?.quirks], ['ack', 'SHOP12', ['text-account']]);
});

test('extended blocks X, Y, I, S after the data are kept (constructed frame: identifiers of the 2021 table)', () => {
  const body = Buffer.from(
    '"SIA-DCS"0007L0#1234[#1234|Nri1/BA01][X024E56.123][Y60N12.345][IBack door][SHQ Vilnius]_11:59:50,01-01-2026',
  );
  const d = handleFrame(body, ctx());
  assert.is(d.action, 'ack');
  assert.equal(d.events[0]!.extended, { X: '024E56.123', Y: '60N12.345', I: 'Back door', S: 'HQ Vilnius' });
});

test('garbled beyond doubt: any single damaged byte of a tolerated frame makes it no frame at all', () => {
  const tolerated = CORPUS.filter((c) => c.quirks.some((q) => q === 'binary-crc' || q === 'cr-counted'));
  let checked = 0;
  for (const c of tolerated) {
    const wire = stripped(c);
    // Every byte from the CRC to the end of the body, each flipped in one bit (the CRC catches every such error).
    for (let i = 1; i < wire.length - 1; i++) {
      const damaged = Buffer.from(wire);
      damaged[i] = damaged[i]! ^ 0x04;
      const item = decodeDatagram(damaged, 4096, ALL);
      const framed = new Dc09Framer(undefined, ALL).push(damaged);
      assert.is(item.kind, 'rejected', `${c.name}: byte ${i}`);
      assert.ok(
        framed.every((f) => f.kind === 'rejected'),
        `${c.name}: byte ${i} (stream)`,
      );
      checked++;
    }
  }
  assert.ok(checked > 200);
});

test('random bytes with every tolerance on never yield a frame (seeded, 20,000 chunks)', () => {
  const random = prng(31);
  const framer = new Dc09Framer(undefined, ALL);
  let frames = 0;
  for (let n = 0; n < 20_000; n++) {
    const chunk = Buffer.alloc(1 + Math.floor(random() * 64));
    for (let i = 0; i < chunk.length; i++)
      chunk[i] = random() < 0.1 ? 0x0a : random() < 0.1 ? 0x30 : Math.floor(random() * 256);
    for (const item of framer.push(chunk)) if (item.kind === 'frame') frames++;
    if (decodeDatagram(chunk, 4096, ALL).kind === 'frame') frames++;
  }
  assert.is(frames, 0);
  assert.ok(framer.buffered < 4096 + 10);
});

test.run();
