/**
 * Sur-Gard MLR2 / MLR2-DG automation lines, byte for byte (MLR2-DG installation manual, "Communication protocol
 * with central station computer"): Contact ID, SIA Protocol 1 and 2, heartbeat, ACK/NAK, padding and the
 * receiver/line columns.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import {
  HEARTBEAT,
  encodeContactId,
  encodeSia,
  encodeSiaBlock,
  encodeSiaFixed,
  readReplies,
  type EncodeResult,
} from '../../../src/protocols/mlr2/index.js';

const R11 = { receiver: 1, line: 1 };

function text(result: EncodeResult): string {
  if (!result.ok) throw new Error(`expected bytes, got: ${result.reason}`);
  return result.bytes.toString('latin1');
}

function reason(result: EncodeResult): string {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result.bytes.toString('latin1'))}`);
  return result.reason;
}

test('the manual example: account 1234 duress, group 01, zone 001, receiver 01 line 1', () => {
  const line = encodeContactId(R11, { account: '1234', qualifier: 'E', code: '121', group: '01', zone: '001' });
  assert.is(text(line), '5011 181234E12101001\x14');
  assert.is(line.ok && line.bytes.length, 21);
  assert.is(line.ok && line.bytes[20], 0x14);
});

test('Contact ID qualifiers E (new), R (restore), P (previous) go out as letters', () => {
  for (const q of ['E', 'R', 'P'] as const) {
    assert.is(
      text(encodeContactId(R11, { account: '7037', qualifier: q, code: '130', group: '01', zone: '004' })),
      `5011 187037${q}13001004\x14`,
    );
  }
});

test('Contact ID columns are padded with zeros on the left, hex digits upper-cased', () => {
  assert.is(
    text(encodeContactId(R11, { account: '12', qualifier: 'E', code: '1', group: '1', zone: '5' })),
    '5011 180012E00101005\x14',
  );
  assert.is(
    text(encodeContactId(R11, { account: 'b2c', qualifier: 'R', code: '3a1', group: null, zone: null })),
    '5011 180B2CR3A100000\x14',
  );
  assert.is(
    text(encodeContactId(R11, { account: '', qualifier: 'E', code: '602', group: '', zone: '' })),
    '5011 180000E60200000\x14',
  );
});

test('Contact ID: longer values lose leading zeros only; significant digits that do not fit refuse the event', () => {
  assert.is(
    text(encodeContactId(R11, { account: '001234', qualifier: 'E', code: '0130', group: '001', zone: '0015' })),
    '5011 181234E13001015\x14',
  );
  assert.is(
    reason(encodeContactId(R11, { account: '12345', qualifier: 'E', code: '130', group: '01', zone: '001' })),
    'account "12345" has more than 4 significant digits',
  );
  assert.is(
    reason(encodeContactId(R11, { account: '1234', qualifier: 'E', code: '130', group: '100', zone: '001' })),
    'group "100" has more than 2 significant digits',
  );
  assert.is(
    reason(encodeContactId(R11, { account: '12G4', qualifier: 'E', code: '130', group: '01', zone: '001' })),
    'account "12G4" is not hex digits',
  );
});

test('receiver and line columns: RR two decimal digits, L one digit', () => {
  assert.is(
    text(encodeContactId({ receiver: 0, line: 0 }, { account: '1', qualifier: 'E', code: '1', group: '0', zone: '0' })),
    '5000 180001E00100000\x14',
  );
  assert.is(
    text(
      encodeContactId({ receiver: 99, line: 9 }, { account: '1', qualifier: 'E', code: '1', group: '0', zone: '0' }),
    ),
    '5999 180001E00100000\x14',
  );
  for (const route of [
    { receiver: 100, line: 1 },
    { receiver: 1, line: 10 },
    { receiver: -1, line: 0 },
  ]) {
    try {
      encodeContactId(route, { account: '1', qualifier: 'E', code: '1' });
      assert.unreachable('out-of-range route must throw');
    } catch (err) {
      assert.ok(isVigilError(err, 'INVALID_SETTINGS'));
    }
  }
});

test('SIA Protocol 1: 3RRL, four spaces, account right-justified in six columns with spaces, code, zone of 4 digits', () => {
  assert.is(text(encodeSiaFixed(R11, { account: '1234', code: 'BA', zone: '1' })), '3011      1234BA0001\x14');
  assert.is(text(encodeSiaFixed(R11, { account: '123456', code: 'FA', zone: '0012' })), '3011    123456FA0012\x14');
  assert.is(
    text(encodeSiaFixed({ receiver: 12, line: 3 }, { account: '001234', code: 'OP', zone: null })),
    '3123    001234OP0000\x14',
  );
  assert.is(text(encodeSiaFixed(R11, { account: '0123456', code: 'BA', zone: '00012' })), '3011    123456BA0012\x14');
  const line = encodeSiaFixed(R11, { account: '1', code: 'RP', zone: '' });
  assert.is(text(line), '3011         1RP0000\x14');
  assert.is(line.ok && line.bytes.length, 21);
});

test('SIA Protocol 1 refuses what it cannot carry', () => {
  assert.is(
    reason(encodeSiaFixed(R11, { account: '1234567', code: 'BA', zone: '1' })),
    'account "1234567" has more than 6 significant digits',
  );
  assert.is(
    reason(encodeSiaFixed(R11, { account: '1234', code: 'Ba', zone: '1' })),
    'SIA code "Ba" is not two upper-case letters',
  );
  assert.is(
    reason(encodeSiaFixed(R11, { account: '1234', code: 'BA', zone: '12345' })),
    'zone "12345" has more than 4 significant digits',
  );
  assert.is(
    reason(encodeSiaFixed(R11, { account: '1234', code: 'BA', zone: '1A' })),
    'zone "1A" is not decimal digits',
  );
});

test('SIA Protocol 2 (MLR2-DG): the manual example SRRL[#1234|Nri1BA01]', () => {
  assert.is(
    text(encodeSiaBlock(R11, { account: '1234', code: 'BA', group: '1', zone: '01' })),
    'S011[#1234|Nri1BA01]\x14',
  );
  assert.is(
    text(encodeSiaBlock({ receiver: 2, line: 0 }, { account: '0123456789abcdef', code: 'FA', group: null, zone: '3' })),
    'S020[#0123456789ABCDEF|NFA3]\x14',
  );
  assert.is(
    text(encodeSiaBlock(R11, { account: '1234', code: 'OP', group: '2', zone: null })),
    'S011[#1234|Nri2OP]\x14',
  );
  assert.is(
    reason(encodeSiaBlock(R11, { account: '0123456789ABCDEF0', code: 'BA' })),
    'account "0123456789ABCDEF0" is not 1 to 16 hex digits',
  );
  assert.is(
    reason(encodeSiaBlock(R11, { account: '1234', code: 'BA', zone: '1]' })),
    'zone "1]" is not decimal digits',
  );
});

test('encodeSia picks Protocol 1 for MLR2 and Protocol 2 for MLR2-DG', () => {
  const e = { account: '1234', code: 'BA', group: '1', zone: '1' };
  assert.is(text(encodeSia('MLR2', R11, e)), '3011      1234BA0001\x14');
  assert.is(text(encodeSia('MLR2-DG', R11, e)), 'S011[#1234|Nri1BA1]\x14');
});

test('the heartbeat is 1011, 11 spaces, @, 4 spaces, DC4', () => {
  assert.is(HEARTBEAT.toString('hex'), Buffer.from('1011           @    ', 'latin1').toString('hex') + '14');
  assert.is(HEARTBEAT.length, 21);
  assert.is(HEARTBEAT.indexOf(0x40), 15);
});

test('replies: ACK 0x06 and NAK 0x15 in order; any other byte is ignored', () => {
  assert.equal(readReplies(Buffer.from([0x06])), ['ack']);
  assert.equal(readReplies(Buffer.from([0x06, 0x0d, 0x15, 0x0a, 0x06])), ['ack', 'nak', 'ack']);
  assert.equal(readReplies(Buffer.from('hello\r\n', 'latin1')), []);
  assert.equal(readReplies(Buffer.alloc(0)), []);
});

test.run();
