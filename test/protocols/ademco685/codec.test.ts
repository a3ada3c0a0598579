/**
 * Ademco 685 automation lines, byte for byte (MX8000 guide §8.5.4 Figure 8-4: [LF]RG 1234 18 QXYZ GG FCCC [CR]), the
 * OKAY test message, the zone/user marker, field fitting and the SIA -> Contact ID equivalents.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import {
  OKAY,
  encodeEvent,
  isUserCode,
  readAdemco685Replies,
  siaToContactId,
} from '../../../src/protocols/ademco685/index.js';
import type { EncodeResult } from '../../../src/protocols/mlr2/index.js';

const R12 = { receiver: 1, group: 2 };

function text(result: EncodeResult): string {
  if (!result.ok) throw new Error(`expected bytes, got: ${result.reason}`);
  return result.bytes.toString('latin1');
}

test('an alarm: LF, R, G, six spaces at the figure places, C before a zone, a space before the CR', () => {
  const got = encodeEvent(R12, { account: '1234', qualifier: 'E', code: '130', group: '01', zone: '015' });
  assert.is(text(got), '\n12 1234 18 E130 01 C015 \r');
  assert.is(got.ok && got.bytes.length, 26);
  assert.is(got.ok && got.bytes[0], 0x0a);
  assert.is(got.ok && got.bytes.at(-1), 0x0d);
});

test('a restore, an opening and a closing by user (U), a periodic test', () => {
  assert.is(
    text(encodeEvent(R12, { account: '1234', qualifier: 'R', code: '130', group: '01', zone: '015' })),
    '\n12 1234 18 R130 01 C015 \r',
  );
  assert.is(
    text(encodeEvent(R12, { account: '1234', qualifier: 'E', code: '401', group: '02', zone: '3' })),
    '\n12 1234 18 E401 02 U003 \r',
  );
  assert.is(
    text(encodeEvent(R12, { account: '1234', qualifier: 'R', code: '401', group: '02', zone: '3' })),
    '\n12 1234 18 R401 02 U003 \r',
  );
  assert.is(
    text(encodeEvent(R12, { account: '1234', qualifier: 'E', code: '602', group: null, zone: null })),
    '\n12 1234 18 E602 00 C000 \r',
  );
  assert.is(
    text(
      encodeEvent({ receiver: 0, group: 9 }, { account: '1234', qualifier: 'P', code: '121', group: '1', zone: '7' }),
    ),
    '\n09 1234 18 P121 01 U007 \r',
  );
});

test('fields are fitted like MLR2: hex upper-cased and zero-padded, leading zeros dropped, never cut', () => {
  assert.is(
    text(encodeEvent(R12, { account: 'c12', qualifier: 'E', code: '3a1', group: 'b', zone: 'f2' })),
    '\n12 0C12 18 E3A1 0B C0F2 \r',
  );
  assert.is(
    text(encodeEvent(R12, { account: '001234', qualifier: 'E', code: '130', group: '01', zone: '0015' })),
    '\n12 1234 18 E130 01 C015 \r',
  );
  const long = encodeEvent(R12, { account: '12345', qualifier: 'E', code: '130', group: '01', zone: '015' });
  assert.equal(long, { ok: false, reason: 'account "12345" has more than 4 significant digits' });
  const zone = encodeEvent(R12, { account: '1234', qualifier: 'E', code: '130', group: '01', zone: '1015' });
  assert.equal(zone, { ok: false, reason: 'zone "1015" has more than 3 significant digits' });
});

test('receiver and group outside 0..9 are a wiring bug (settings refuse them), not a bad event', () => {
  try {
    encodeEvent({ receiver: 10, group: 0 }, { account: '1234', qualifier: 'E', code: '130' });
    assert.unreachable('must throw');
  } catch (err) {
    assert.ok(isVigilError(err) && err.code === 'INVALID_SETTINGS');
  }
});

test('the OKAY test message and the replies', () => {
  assert.is(OKAY.toString('latin1'), '\n00 OKAY @\r');
  assert.equal(readAdemco685Replies(Buffer.from([0x06, 0x53, 0x0d, 0x15, 0x06])), ['ack', 'nak', 'ack']);
});

test('user codes are the Contact ID "User" data types', () => {
  for (const code of ['121', '401', '403', '441', '456', '607', '625']) assert.ok(isUserCode(code), code);
  for (const code of ['110', '130', '301', '570', '602']) assert.not.ok(isUserCode(code), code);
});

test('SIA codes map onto their Contact ID events; a code without one becomes general alarm 140', () => {
  assert.equal(siaToContactId('BA'), { qualifier: 'E', code: '130', exact: true });
  assert.equal(siaToContactId('BR'), { qualifier: 'R', code: '130', exact: true });
  assert.equal(siaToContactId('FA'), { qualifier: 'E', code: '110', exact: true });
  assert.equal(siaToContactId('OP'), { qualifier: 'E', code: '401', exact: true });
  assert.equal(siaToContactId('CL'), { qualifier: 'R', code: '401', exact: true });
  assert.equal(siaToContactId('RP'), { qualifier: 'E', code: '602', exact: true });
  assert.equal(siaToContactId('LB'), { qualifier: 'E', code: '140', exact: false });
  assert.equal(siaToContactId('NR'), { qualifier: 'R', code: '140', exact: false });
});

test.run();
