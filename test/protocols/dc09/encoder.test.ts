import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import { buildMessage, type BuildMessageOptions } from '../../../src/protocols/dc09/encoder.js';
import { parseKey } from '../../../src/protocols/dc09/crypto.js';
import { openMessage, parseMessage, type ParsedMessage } from '../../../src/protocols/dc09/message.js';
import { aesHex, bodyOf, latin1, NOW, zeroBytes } from './fixtures.js';

test('a plain SIA-DCS message with receiver, line and timestamp, byte for byte', () => {
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: 1,
    receiver: 0x12,
    line: 1,
    account: '001234',
    data: '#001234|Nri1/BA01',
    timestamp: NOW,
  });
  assert.is(latin1(frame), '\n205C0040"SIA-DCS"0001R12L1#001234[#001234|Nri1/BA01]_12:00:00,01-01-2026\r');
});

test('a plain ADM-CID message without receiver or timestamp, byte for byte', () => {
  const frame = buildMessage({ token: 'ADM-CID', sequence: 42, line: 0, account: '1234', data: '#1234|1401 01 015' });
  assert.is(latin1(frame), '\nAA5E0027"ADM-CID"0042L0#1234[#1234|1401 01 015]\r');
});

test('a NULL message has empty data', () => {
  const frame = buildMessage({
    token: 'NULL',
    sequence: 0,
    receiver: 0,
    line: 0,
    account: '1234',
    data: '',
    timestamp: NOW,
  });
  assert.is(latin1(frame), '\n310C0029"NULL"0000R0L0#1234[]_12:00:00,01-01-2026\r');
});

test('extended data blocks follow the data block', () => {
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: '0002',
    account: 'ABC',
    data: '#ABC|NBA1',
    extended: [
      { id: 'X', value: 'E12.5' },
      { id: 'Y', value: 'N48.1' },
    ],
  });
  assert.ok(latin1(frame).endsWith('"SIA-DCS"0002#ABC[#ABC|NBA1][XE12.5][YN48.1]\r'));
});

test('an encrypted message puts data, extended data and timestamp inside the encrypted part', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: 3,
    line: 0,
    account: '1234',
    data: '#1234|NBA1',
    extended: [{ id: 'V', value: 'cam' }],
    timestamp: NOW,
    key,
    randomBytes: zeroBytes,
  });
  const inside = '#1234|NBA1][Vcam]_12:00:00,01-01-2026'; // 37 chars + '|' = 38: pad 10
  assert.is(bodyOf(frame).toString('latin1'), `"*SIA-DCS"0003L0#1234[${aesHex(`${'!'.repeat(10)}|${inside}`, key)}`);
  const opened = openMessage(parseMessage(bodyOf(frame)) as ParsedMessage, key);
  assert.equal([opened?.data, opened?.extended, opened?.timestamp], ['#1234|NBA1', [{ id: 'V', value: 'cam' }], NOW]);
});

test('invalid fields are refused with FRAME_INVALID', () => {
  const base: BuildMessageOptions = { token: 'SIA-DCS', sequence: 1, account: '1234', data: '#1234|NBA1' };
  const bad: Array<Partial<BuildMessageOptions>> = [
    { sequence: 10000 },
    { sequence: -1 },
    { sequence: '12' },
    { receiver: 0x1000000 },
    { line: 'XYZ' },
    { account: '12' },
    { account: '12345678901234567' },
    { data: 'a]b' },
    { extended: [{ id: 'XY', value: '1' }] },
  ];
  for (const over of bad) {
    try {
      buildMessage({ ...base, ...over });
      assert.unreachable(JSON.stringify(over));
    } catch (err) {
      assert.ok(isVigilError(err, 'FRAME_INVALID'), JSON.stringify(over));
    }
  }
});

test.run();
