import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isVigilError } from '../../../src/core/errors.js';
import { buildAck, buildDuh, buildNak, parseReply } from '../../../src/protocols/dc09/replies.js';
import { encodeFrame } from '../../../src/protocols/dc09/frame.js';
import { aesHex, bodyOf, latin1, NOW, zeroBytes } from './fixtures.js';

const KEY = Buffer.from('0123456789ABCDEF');

test('ACK echoes sequence, receiver, line and account exactly, with empty data', () => {
  const ack = buildAck(
    { token: 'SIA-DCS', encrypted: false, sequence: '0001', receiver: '1', line: '2', account: '001234' },
    { now: NOW },
  );
  assert.is(latin1(ack), '\nF90A0016"ACK"0001R1L2#001234[]\r');
});

test('ACK leaves out fields the message did not carry', () => {
  const ack = buildAck(
    { token: 'ADM-CID', encrypted: false, sequence: '0043', line: '0', account: '5101' },
    { now: NOW },
  );
  assert.is(latin1(ack), '\n20200012"ACK"0043L0#5101[]\r');
});

test('*ACK to an encrypted message carries pad|]_timestamp encrypted with the key', () => {
  const ack = buildAck(
    { token: 'SIA-DCS', encrypted: true, sequence: '0009', receiver: 'A1', line: '0', account: '0042' },
    { now: NOW, key: KEY, randomBytes: zeroBytes },
  );
  const body = `"*ACK"0009RA1L0#0042[${aesHex(`${'!'.repeat(10)}|]_12:00:00,01-01-2026`, KEY)}`;
  assert.equal(ack, encodeFrame(body));
});

test('an encrypted ACK without a key is a programming error', () => {
  try {
    buildAck({ token: 'NULL', encrypted: true, sequence: '0001' }, { now: NOW });
    assert.unreachable('should throw');
  } catch (err) {
    assert.ok(isVigilError(err, 'FRAME_INVALID'));
  }
});

test('NAK is the fixed form with the receiver time (published example bytes)', () => {
  assert.is(latin1(buildNak(Date.UTC(2015, 3, 14, 16, 9, 9))), '\n3C830025"NAK"0000R0L0A0[]_16:09:09,04-14-2015\r');
  assert.is(
    latin1(buildNak(new Date(Date.UTC(2024, 6, 30, 10, 10, 18, 999)))),
    '\nE5630025"NAK"0000R0L0A0[]_10:10:18,07-30-2024\r',
  );
});

test('DUH echoes what could be read; a missing sequence becomes 0000', () => {
  assert.is(
    latin1(buildDuh({ token: 'XYZ', encrypted: false, sequence: '0007', receiver: '12', account: 'ABC' })),
    '\nC8130012"DUH"0007R12#ABC[]\r',
  );
  assert.is(latin1(buildDuh({})), '\n8C97000B"DUH"0000[]\r');
});

test('parseReply reads a plain ACK and a DUH', () => {
  assert.equal(parseReply(Buffer.from('"ACK"0001R1L2#001234[]')), {
    kind: 'ACK',
    encrypted: false,
    sequence: '0001',
    opened: true,
    extended: [],
    timestampText: null,
    timestamp: null,
    receiver: '1',
    line: '2',
    account: '001234',
  });
  assert.is(parseReply(Buffer.from('"DUH"0007L0[]'))?.kind, 'DUH');
});

test('parseReply reads the NAK timestamp so a transmitter can correct its clock', () => {
  const nak = parseReply(bodyOf(buildNak(NOW)));
  assert.equal(nak, {
    kind: 'NAK',
    encrypted: false,
    sequence: '0000',
    opened: true,
    extended: [],
    timestampText: '12:00:00,01-01-2026',
    timestamp: NOW,
  });
});

test('parseReply opens a *ACK with the key, and reports it unopened without one', () => {
  const body = bodyOf(
    buildAck({ token: 'NULL', encrypted: true, sequence: '0002', line: '0', account: '1234' }, { now: NOW, key: KEY }),
  );
  const opened = parseReply(body, KEY);
  assert.is(opened?.kind, 'ACK');
  assert.is(opened?.opened, true);
  assert.is(opened?.timestamp, NOW);
  const closed = parseReply(body);
  assert.is(closed?.opened, false);
  assert.is(closed?.timestamp, null);
  assert.is(parseReply(body, Buffer.from('0123456789ABCDEG'))?.opened, false);
});

test('parseReply accepts a *ACK whose pad has no "|" (as some receivers send)', () => {
  const body = `"*ACK"0003L0#1234[${aesHex(`${'0'.repeat(11)}]_12:00:00,01-01-2026`, KEY)}`;
  const reply = parseReply(Buffer.from(body), KEY);
  assert.is(reply?.opened, true);
  assert.is(reply?.timestamp, NOW);
});

test('parseReply returns null for anything that is not a reply', () => {
  for (const body of [
    '',
    '"SIA-DCS"0001#1234[]',
    '"ACK"01#1234[]',
    '"ACK"0001#1234',
    '"ACK"0001#1234[]junk',
    'garbage',
  ]) {
    assert.is(parseReply(Buffer.from(body)), null, body);
  }
});

test.run();
