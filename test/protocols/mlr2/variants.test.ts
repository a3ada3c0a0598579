/**
 * The Sur-Gard layout variants, byte for byte (DSC "SG Automation Output Protocol" rev. 161: §4.2 heartbeat, §4.7 SIA,
 * §4.9 Contact ID 4-digit account, §4.10 Contact ID 10-digit account): the 3-digit virtual line LLL in place of L.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  HEARTBEAT,
  encodeContactId,
  encodeSia,
  heartbeat,
  type EncodeResult,
} from '../../../src/protocols/mlr2/index.js';

function text(result: EncodeResult): string {
  if (!result.ok) throw new Error(`expected bytes, got: ${result.reason}`);
  return result.bytes.toString('latin1');
}

const duress = { account: '1234', qualifier: 'E', code: '121', group: '01', zone: '001' } as const;

test('3-digit line: the manual example 501100s181234E12101001 (receiver 01, line 100)', () => {
  assert.is(text(encodeContactId({ receiver: 1, line: 100, lineDigits: 3 }, duress)), '501100 181234E12101001\x14');
  assert.is(text(encodeContactId({ receiver: 1, line: 7, lineDigits: 3 }, duress)), '501007 181234E12101001\x14');
});

test('the classic layout is unchanged: 5RRL, 20 characters', () => {
  assert.is(text(encodeContactId({ receiver: 1, line: 1 }, duress)), '5011 181234E12101001\x14');
});

test('10-digit accounts: only with longAccounts on a 3-digit line; 4-digit accounts keep protocol 5', () => {
  const route = { receiver: 1, line: 100, lineDigits: 3, longAccounts: true } as const;
  assert.is(text(encodeContactId(route, { ...duress, account: '123456' })), 'Q01100 580000123456E12101001\x14');
  assert.is(text(encodeContactId(route, { ...duress, account: 'A2345678BC' })), 'Q01100 58A2345678BCE12101001\x14');
  assert.is(text(encodeContactId(route, duress)), '501100 181234E12101001\x14');
  assert.equal(encodeContactId(route, { ...duress, account: '12345678901' }), {
    ok: false,
    reason: 'account "12345678901" has more than 10 significant digits',
  });
  assert.equal(encodeContactId({ receiver: 1, line: 100, lineDigits: 3 }, { ...duress, account: '123456' }), {
    ok: false,
    reason: 'account "123456" has more than 4 significant digits',
  });
});

test('SIA on a 3-digit line: Protocol 2 SRRLLL[...]; Protocol 1 has no such layout', () => {
  const sia = { account: '1234', code: 'BA', group: '1', zone: '01' };
  assert.is(text(encodeSia('MLR2-DG', { receiver: 1, line: 100, lineDigits: 3 }, sia)), 'S01100[#1234|Nri1BA01]\x14');
  assert.equal(encodeSia('MLR2', { receiver: 1, line: 100, lineDigits: 3 }, sia), {
    ok: false,
    reason: 'SIA Protocol 1 has no 3-digit line layout',
  });
});

test('heartbeat: the fixed 1011 line, or 1RR000 + 11 spaces + @ + 4 spaces with a 3-digit line', () => {
  assert.is(heartbeat({ receiver: 7, line: 3 }), HEARTBEAT);
  assert.is(heartbeat({ receiver: 7, line: 3, lineDigits: 3 }).toString('latin1'), '107000           @    \x14');
  assert.is(heartbeat({ receiver: 7, line: 3, lineDigits: 3 }).length, 23);
});

test.run();
