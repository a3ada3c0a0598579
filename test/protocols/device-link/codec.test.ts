import { createCipheriv } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import { Dc09Framer } from '../../../src/protocols/dc09/frame.js';
import {
  decodeLinkBody,
  encodeCommand,
  encodeHello,
  encodeLinkMessage,
  encodeResponse,
  encodeTime,
  isLinkBody,
} from '../../../src/protocols/device-link/codec.js';
import { MAX_DATA_BYTES, type LinkMessage } from '../../../src/protocols/device-link/messages.js';
import { EXAMPLES, EXAMPLE_KEY, EXAMPLE_TIME, bodyOf, zeroPad } from './examples.js';

const KEYS: ReadonlyArray<[string, Buffer]> = [
  ['AES-128', Buffer.from('0123456789abcdef', 'latin1')],
  ['AES-192', Buffer.from('0123456789abcdef01234567', 'latin1')],
  ['AES-256', Buffer.from('00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF', 'hex')],
];

function decodeFrame(frame: Buffer, key: Buffer | null) {
  const items = new Dc09Framer().push(frame);
  assert.is(items.length, 1);
  const item = items[0]!;
  if (item.kind !== 'frame') throw new Error(`framer rejected: ${item.reason}`);
  return decodeLinkBody(item.body, key);
}

for (const example of EXAMPLES) {
  test(`${example.name}: exact bytes of the documented example`, () => {
    const frame = encodeLinkMessage(
      example.message,
      example.encrypted ? { key: EXAMPLE_KEY, randomBytes: zeroPad } : {},
    );
    assert.is(frame.toString('latin1'), example.frame);
  });

  test(`${example.name}: decodes back to the same message`, () => {
    const decoded = decodeFrame(Buffer.from(example.frame, 'latin1'), EXAMPLE_KEY);
    assert.equal(decoded, { ...example.message, encrypted: example.encrypted });
  });

  for (const [name, key] of KEYS) {
    test(`${example.name}: round trip encrypted with ${name} (random pad)`, () => {
      const message = { ...example.message, timestamp: EXAMPLE_TIME } as LinkMessage;
      const frame = encodeLinkMessage(message, { key });
      assert.ok(frame.toString('latin1').includes('"*VL-'));
      assert.equal(decodeFrame(frame, key), { ...message, encrypted: true });
    });
  }
}

test('the access code never appears in an encrypted frame', () => {
  const frame = encodeCommand(
    {
      kind: 'control',
      seq: 7,
      timestamp: EXAMPLE_TIME,
      auth: { mode: 'code', code: '987654' },
      replyWanted: true,
      data: Buffer.from([1]),
    },
    { key: EXAMPLE_KEY },
  );
  const text = frame.toString('latin1');
  assert.not.ok(text.includes('987654'));
  assert.not.ok(text.includes(Buffer.from('987654').toString('hex').toUpperCase()));
});

test('a UTF-8 access code and the largest data survive a round trip', () => {
  const message: LinkMessage = {
    type: 'command',
    kind: 'config',
    seq: 9999,
    timestamp: EXAMPLE_TIME,
    auth: { mode: 'code', code: 'ü'.repeat(32) },
    replyWanted: true,
    data: Buffer.alloc(MAX_DATA_BYTES, 0xa5),
  };
  const frame = encodeLinkMessage(message, { key: KEYS[2]![1] });
  assert.ok(frame.length <= 0xfff + 10);
  assert.equal(decodeFrame(frame, KEYS[2]![1]), { ...message, encrypted: true });
});

test('lower-case hex and header fields a DC-09 device adds are accepted', () => {
  const decoded = decodeLinkBody(Buffer.from('"VL-HELLO"0002R1L0#00ab[V2|Uabcdef|Yfuture]', 'latin1'), null);
  assert.equal(decoded, {
    type: 'hello',
    seq: 2,
    timestamp: null,
    encrypted: false,
    version: 2,
    uid: 'ABCDEF',
    account: '00AB',
  });
  const rsp = decodeLinkBody(Buffer.from('"VL-RSP"0005[Dab|SOK|C1|N1]', 'latin1'), null);
  assert.equal(rsp, {
    type: 'response',
    seq: 5,
    timestamp: null,
    encrypted: false,
    packetNumber: 1,
    packetCount: 1,
    status: 'OK',
    data: Buffer.from([0xab]),
  });
});

test('isLinkBody tells device-link bodies from DC-09 ones', () => {
  assert.ok(isLinkBody(Buffer.from('"VL-RSP"0001[]')));
  assert.ok(isLinkBody(Buffer.from('"*VL-RSP"0001[00]')));
  assert.not.ok(isLinkBody(Buffer.from('"SIA-DCS"0001#1234[]')));
  assert.not.ok(isLinkBody(Buffer.from('"VL')));
  assert.not.ok(isLinkBody(Buffer.alloc(0)));
});

const BAD_BODIES: ReadonlyArray<[string, string, Record<string, unknown>]> = [
  ['a DC-09 body', '"NULL"0001[]', { error: 'not-link' }],
  ['an unknown VL token', '"VL-PING"0003[]', { error: 'unknown-type', token: 'VL-PING', seq: 3, encrypted: false }],
  ['a 3-digit sequence', '"VL-ACK"001[]', { error: 'format', token: 'VL-ACK' }],
  ['no closing bracket', '"VL-ACK"0001[', { error: 'format', seq: 1 }],
  ['text after the bracket', '"VL-ACK"0001[]x', { error: 'format', seq: 1 }],
  ['an impossible timestamp', '"VL-ACK"0001[]_10:30:00,02-30-2026', { error: 'format' }],
  ['a repeated key', '"VL-RSP"0001[N1|N1|C1|SOK|D]', { error: 'format' }],
  ['an empty field', '"VL-RSP"0001[N1||C1|SOK|D]', { error: 'format' }],
  ['odd-length data', '"VL-RSP"0001[N1|C1|SOK|DABC]', { error: 'format' }],
  ['an unknown status', '"VL-RSP"0001[N1|C1|SMAYBE|D]', { error: 'format' }],
  ['a 5-digit packet count', '"VL-RSP"0001[N1|C10000|SOK|D]', { error: 'format' }],
  ['a command without Q', '"VL-CMD"0001[AO|D00]', { error: 'format', token: 'VL-CMD' }],
  ['an access code that is not UTF-8', '"VL-CMD"0001[AMFF|Q1|D00]', { error: 'format' }],
  ['a 5-digit UID', '"VL-HELLO"0001[V1|U12345]', { error: 'format' }],
  ['a VL-TIME without timestamp', '"VL-TIME"0001[]', { error: 'format', token: 'VL-TIME' }],
  ['a bad offset', '"VL-TIME"0001[Z+900]_10:30:00,01-15-2026', { error: 'format' }],
  ['a bad header', '"VL-ACK"0001#12[]', { error: 'format' }],
];

for (const [name, body, expected] of BAD_BODIES) {
  test(`decoding ${name} reports ${String(expected.error)} without throwing`, () => {
    const result = decodeLinkBody(Buffer.from(body, 'latin1'), null);
    assert.ok('error' in result, JSON.stringify(result));
    for (const [k, v] of Object.entries(expected))
      assert.equal((result as unknown as Record<string, unknown>)[k], v, k);
  });
}

test('an encrypted body without a key is no-key, with the wrong key crypto', () => {
  const frame = encodeTime({ seq: 12, timestamp: EXAMPLE_TIME }, { key: EXAMPLE_KEY });
  assert.equal(decodeLinkBody(bodyOf(frame), null), {
    error: 'no-key',
    detail: 'encrypted message and no key',
    token: 'VL-TIME',
    encrypted: true,
    seq: 12,
  });
  const wrong = decodeLinkBody(bodyOf(frame), Buffer.from('fedcba9876543210'));
  assert.is((wrong as { error: string }).error, 'crypto');
  assert.is((wrong as { seq: number }).seq, 12);
});

test('an encrypted body whose plaintext has no timestamp is refused', () => {
  // Built by hand: the encoder never produces it.
  const plain = Buffer.from(`${'!'.repeat(14)}|]`, 'latin1');
  const c = createCipheriv('aes-128-cbc', EXAMPLE_KEY, Buffer.alloc(16));
  c.setAutoPadding(false);
  const hex = Buffer.concat([c.update(plain), c.final()])
    .toString('hex')
    .toUpperCase();
  const result = decodeLinkBody(Buffer.from(`"*VL-ACK"0001[${hex}`), EXAMPLE_KEY);
  assert.is((result as { detail: string }).detail, 'encrypted message without timestamp');
});

const THROWS: ReadonlyArray<[string, () => unknown]> = [
  [
    'a sequence above 9999',
    () =>
      encodeResponse({
        seq: 10000,
        timestamp: null,
        packetNumber: 1,
        packetCount: 1,
        status: 'OK',
        data: Buffer.alloc(0),
      }),
  ],
  [
    'an encrypted message without timestamp',
    () =>
      encodeResponse(
        { seq: 1, timestamp: null, packetNumber: 1, packetCount: 1, status: 'OK', data: Buffer.alloc(0) },
        { key: EXAMPLE_KEY },
      ),
  ],
  ['a VL-TIME without timestamp', () => encodeTime({ seq: 1, timestamp: null })],
  ['a short UID', () => encodeHello({ seq: 1, timestamp: null, version: 1, uid: 'ABC' })],
  ['a hw id with a bar', () => encodeHello({ seq: 1, timestamp: null, version: 1, uid: 'ABCDEF', hwId: 'a|b' })],
  [
    'data above the limit',
    () =>
      encodeCommand({
        kind: 'control',
        seq: 1,
        timestamp: null,
        auth: { mode: 'none' },
        replyWanted: true,
        data: Buffer.alloc(MAX_DATA_BYTES + 1),
      }),
  ],
  [
    'an access code of 65 bytes',
    () =>
      encodeCommand({
        kind: 'control',
        seq: 1,
        timestamp: null,
        auth: { mode: 'code', code: 'x'.repeat(65) },
        replyWanted: true,
        data: Buffer.alloc(1),
      }),
  ],
];

for (const [name, run] of THROWS) {
  test(`encoding ${name} throws FRAME_INVALID`, () => {
    try {
      run();
    } catch (err) {
      assert.ok(isVigilError(err, 'FRAME_INVALID'), String(err));
      return;
    }
    assert.unreachable('no error thrown');
  });
}

test.run();
