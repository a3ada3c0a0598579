/**
 * Fuzz: at least 100,000 random and mutated frames, interleaved with valid ones, through Dc09Framer and handleFrame
 * (seeded, bounded in count and time). Properties: nothing throws, the framer's buffer stays bounded, every valid
 * frame is still found in order and ACKed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage } from '../../../src/protocols/dc09/encoder.js';
import { Dc09Framer, encodeFrame } from '../../../src/protocols/dc09/frame.js';
import { handleFrame } from '../../../src/protocols/dc09/handler.js';
import { parseKey } from '../../../src/protocols/dc09/crypto.js';
import { parseReply } from '../../../src/protocols/dc09/replies.js';
import { parseMessage } from '../../../src/protocols/dc09/message.js';
import { ctx, NOW, prng } from './fixtures.js';

const TARGET_ITEMS = 100_000;
/** A bound on the loop: the 100,000 items take about 2 s on an idle machine. */
const TIME_LIMIT_MS = 60_000;
const MAX_BODY = 4096;
const KEY = parseKey('ABCDEFGHIJKLMNOP');
const rnd = prng(20261122);
const int = (n: number): number => Math.floor(rnd() * n);
const pick = <T>(list: readonly T[]): T => list[int(list.length)]!;
const hex = (n: number): string => Array.from({ length: n }, () => '0123456789ABCDEF'[int(16)]).join('');
const randomBytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => int(256)));

const SIA_CODES = ['BA', 'BR', 'FA', 'OP', 'CL', 'RP', 'ZX', 'YT', 'TA'];

function validFrame(): Buffer {
  const token = pick(['SIA-DCS', 'ADM-CID', 'NULL'] as const);
  const account = hex(3 + int(14));
  const data =
    token === 'SIA-DCS'
      ? `#${account}|Nri${int(9)}/${pick(SIA_CODES)}${String(int(999)).padStart(3, '0')}`
      : token === 'ADM-CID'
        ? `#${account}|${pick(['1', '3', '6'])}${pick(['130', '401', '602', '301'])} 0${int(9)} ${hex(3)}`
        : '';
  return buildMessage({
    token,
    sequence: int(10000),
    account,
    data,
    ...(rnd() < 0.5 ? { receiver: hex(1 + int(6)) } : {}),
    ...(rnd() < 0.8 ? { line: hex(1 + int(6)) } : {}),
    ...(rnd() < 0.3 ? { extended: [{ id: 'X', value: `E${int(180)}.${int(99)}` }] } : {}),
    timestamp: NOW - int(40_000) + int(20_000),
    ...(rnd() < 0.5 ? { key: KEY, randomBytes } : {}),
  });
}

function mutate(frame: Buffer): Buffer {
  const copy = Buffer.from(frame);
  switch (int(8)) {
    case 0: // flip bytes
      for (let i = 0, n = 1 + int(4); i < n; i++) copy[int(copy.length)] = int(256);
      return copy;
    case 1: // truncate
      return copy.subarray(0, int(copy.length));
    case 2: // insert random bytes
      {
        const at = int(copy.length);
        return Buffer.concat([copy.subarray(0, at), randomBytes(1 + int(20)), copy.subarray(at)]);
      }
    case 3: // delete a range
      {
        const at = int(copy.length);
        return Buffer.concat([copy.subarray(0, at), copy.subarray(at + 1 + int(10))]);
      }
    case 4: // mutate the body but keep CRC and length right, so the parser sees it
      {
        const body = Buffer.from(
          copy
            .subarray(9, copy.length - 1)
            .toString('latin1')
            .replace(/[\r\n]/g, ''),
          'latin1',
        );
        for (let i = 0, n = 1 + int(3); i < n && body.length > 0; i++) body[int(body.length)] = 0x20 + int(0x5f);
        return encodeFrame(body);
      }
    case 5: // a header announcing a huge body
      return Buffer.concat([Buffer.from('\nABCD0FFF"SIA-DCS"'), randomBytes(int(50))]);
    case 6: // pure noise, with LF and CR sprinkled in
      return Buffer.from(Array.from({ length: int(120) }, () => (rnd() < 0.05 ? pick([0x0a, 0x0d, 0x22]) : int(256))));
    default: // printable garbage that looks a bit like DC-09
      return Buffer.from(
        `\n${hex(4)}0${hex(3)}"${pick(['SIA-DCS', 'ADM-CID', 'NULL', '*NULL', 'ACK', 'VL-X'])}"${hex(int(12))}[${hex(int(40))}]`,
        'latin1',
      );
  }
}

test('100,000 random and mutated frames: no throw, bounded buffer, every valid frame found and ACKed', () => {
  const started = Date.now();
  const framer = new Dc09Framer(MAX_BODY);
  const handlerCtx = ctx({ key: KEY, checkPlainTimestamps: true });
  const expected: Buffer[] = [];
  let matched = 0;
  let items = 0;
  let framesHandled = 0;
  let maxBuffered = 0;

  const consume = (chunk: Buffer): void => {
    for (const item of framer.push(chunk)) {
      if (item.kind !== 'frame') continue;
      const decision = handleFrame(item.body, handlerCtx);
      framesHandled++;
      if (matched < expected.length && item.raw.equals(expected[matched]!)) {
        assert.is(decision.action, 'ack', `valid frame not ACKed: ${item.raw.toString('latin1')} (${decision.reason})`);
        matched++;
      }
    }
    maxBuffered = Math.max(maxBuffered, framer.buffered);
  };

  while (items < TARGET_ITEMS && Date.now() - started < TIME_LIMIT_MS) {
    const parts: Buffer[] = [];
    for (let i = 0; i < 50; i++, items++) {
      const valid = validFrame();
      if (rnd() < 0.3) {
        parts.push(valid);
        expected.push(valid);
      } else {
        const garbage = mutate(valid);
        parts.push(garbage);
        // The parser alone, on bodies the framer would reject: must not throw either.
        handleFrame(garbage, handlerCtx);
        parseMessage(garbage);
        parseReply(garbage, KEY);
      }
    }
    const stream = Buffer.concat(parts);
    for (let pos = 0; pos < stream.length; ) {
      const size = 1 + int(rnd() < 0.1 ? 4 : 400);
      consume(stream.subarray(pos, pos + size));
      pos += size;
    }
  }
  // Flush: one more valid frame ends any garbage still held.
  const last = validFrame();
  expected.push(last);
  consume(last);

  // A machine loaded far beyond its cores may reach the bound first; a quarter is still a real fuzz.
  assert.ok(items >= TARGET_ITEMS / 4, `only ${items} items in ${TIME_LIMIT_MS} ms`);
  assert.ok(maxBuffered <= MAX_BODY + 10, `buffer grew to ${maxBuffered}`);
  assert.is(matched, expected.length, `found ${matched} of ${expected.length} valid frames`);
  assert.ok(framesHandled >= expected.length);
});

test.run();
