import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Dc09Framer } from '../../../src/protocols/dc09/frame.js';
import { decodeLinkBody, encodeLinkMessage } from '../../../src/protocols/device-link/codec.js';
import type { LinkMessage } from '../../../src/protocols/device-link/messages.js';
import { EXAMPLES, EXAMPLE_KEY, bodyOf } from './examples.js';
import { prng } from '../../helpers/prng.js';

const ALPHABET = Buffer.from('"*[]|_:,-#0123456789ABCDEFabcdefVLNCSDQAUHFMOZER\x00\xff ', 'latin1');

function mutate(body: Buffer, rnd: () => number): Buffer {
  const out = Buffer.from(body);
  const edits = 1 + Math.floor(rnd() * 4);
  let bytes: number[] = [...out];
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rnd() * (bytes.length + 1));
    const pick = ALPHABET[Math.floor(rnd() * ALPHABET.length)]!;
    const op = rnd();
    if (op < 0.4) bytes[at] = pick;
    else if (op < 0.7) bytes.splice(at, 1);
    else if (op < 0.9) bytes.splice(at, 0, pick);
    else bytes = bytes.slice(0, at);
  }
  return Buffer.from(bytes);
}

const SEED = 0x5eed;
const ROUNDS = 5000;

test(`${ROUNDS} mutated bodies (seed ${SEED}) never throw, and what decodes re-encodes to the same message`, () => {
  const rnd = prng(SEED);
  const started = Date.now();
  const seeds = EXAMPLES.map((e) => bodyOf(Buffer.from(e.frame, 'latin1')));
  let decoded = 0;
  for (let i = 0; i < ROUNDS && Date.now() - started < 20_000; i++) {
    const body =
      i % 10 === 0
        ? Buffer.from(Array.from({ length: Math.floor(rnd() * 80) }, () => Math.floor(rnd() * 256)))
        : mutate(seeds[i % seeds.length]!, rnd);
    const key = rnd() < 0.8 ? EXAMPLE_KEY : null;
    const result = decodeLinkBody(body, key);
    if ('error' in result) continue;
    decoded += 1;
    const { encrypted, ...message } = result;
    const again = decodeLinkBody(bodyOf(encodeLinkMessage(message as LinkMessage, encrypted ? { key } : {})), key);
    assert.equal(again, result, `seed ${SEED} round ${i}: ${body.toString('latin1')}`);
  }
  // Some mutations leave a valid message (e.g. a changed data digit): the re-encode path ran.
  assert.ok(decoded > 50, `only ${decoded} mutated bodies decoded`);
});

test('random bytes through the framer and the decoder never throw and keep the buffer bounded', () => {
  const rnd = prng(SEED + 1);
  const framer = new Dc09Framer();
  const valid = Buffer.from(EXAMPLES[6]!.frame, 'latin1');
  let found = 0;
  for (let i = 0; i < 2000; i++) {
    const noise = Buffer.from(
      Array.from({ length: Math.floor(rnd() * 64) }, () => ALPHABET[Math.floor(rnd() * ALPHABET.length)]!),
    );
    for (const item of framer.push(Buffer.concat([noise, Buffer.from('\r'), valid]))) {
      if (item.kind !== 'frame') continue;
      const result = decodeLinkBody(item.body, EXAMPLE_KEY);
      if (!('error' in result) && result.type === 'response') found += 1;
    }
    assert.ok(framer.buffered <= 4096 + 10);
  }
  // Noise can swallow the odd frame; nearly all must come through.
  assert.ok(found >= 1900, `found ${found} of 2000`);
});

test.run();
