import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage, type BuildMessageOptions } from '../../../src/protocols/dc09/encoder.js';
import { handleFrame, type FrameDecision, type HandlerContext } from '../../../src/protocols/dc09/handler.js';
import { parseKey, receiverPasswordKey } from '../../../src/protocols/dc09/crypto.js';
import { parseReply } from '../../../src/protocols/dc09/replies.js';
import { aesHex, bodyOf, ctx, latin1, NOW, zeroBytes } from './fixtures.js';

const NAK_AT_NOW = '\n23780025"NAK"0000R0L0A0[]_12:00:00,01-01-2026\r';

function handle(body: string, over: Partial<HandlerContext> = {}): FrameDecision {
  return handleFrame(Buffer.from(body, 'latin1'), ctx(over));
}

function send(o: Partial<BuildMessageOptions>, over: Partial<HandlerContext> = {}): FrameDecision {
  const frame = buildMessage({
    token: 'SIA-DCS',
    sequence: 7,
    line: 0,
    account: '1234',
    data: '#1234|Nri1/BA01',
    timestamp: NOW,
    randomBytes: zeroBytes,
    ...o,
  });
  return handleFrame(bodyOf(frame), ctx(over));
}

test('a plain SIA-DCS alarm is ACKed with the exact reply and decoded into one event', () => {
  const d = handle('"SIA-DCS"0001R1L2#001234[#001234|Nri1/BA01^Front door^][XE12.5]_11:59:50,01-01-2026');
  assert.is(d.action, 'ack');
  assert.is(latin1(d.reply), '\nF90A0016"ACK"0001R1L2#001234[]\r');
  assert.equal(d.events, [
    {
      account: '001234',
      receiver: '1',
      line: '2',
      sequence: '0001',
      encrypted: false,
      extended: { X: 'E12.5' },
      deviceTime: NOW - 10_000,
      deviceTimeText: '11:59:50,01-01-2026',
      protocol: 'SIA-DCS',
      eventClass: 'alarm',
      code: 'BA',
      groupNo: '1',
      zoneNo: '01',
      text: 'Front door',
      modifiers: { ri: '1' },
    },
  ]);
});

test('one event per SIA event code in the message', () => {
  const d = handle('"SIA-DCS"0002L0#1234[#1234|Nri1/BA01/BA02/ri2/BR01]');
  assert.equal(
    d.events.map((e) => [e.code, e.zoneNo, e.groupNo, e.eventClass]),
    [
      ['BA', '01', '1', 'alarm'],
      ['BA', '02', '1', 'alarm'],
      ['BR', '01', '2', 'restore'],
    ],
  );
  assert.is(d.events[0]!.deviceTime, null);
});

test('an ADM-CID event is decoded with qualifier, code, group and zone', () => {
  const d = handle('"ADM-CID"0043L0#5101[#5101|3130 01 003]');
  assert.is(latin1(d.reply), '\n20200012"ACK"0043L0#5101[]\r');
  assert.equal(d.events, [
    {
      account: '5101',
      line: '0',
      sequence: '0043',
      encrypted: false,
      deviceTime: null,
      deviceTimeText: null,
      protocol: 'ADM-CID',
      eventClass: 'restore',
      qualifier: 'R',
      code: '130',
      groupNo: '01',
      zoneNo: '003',
    },
  ]);
});

test('NULL is a link test: ACK, no events, data ignored', () => {
  for (const body of ['"NULL"0000R0L0#1234[]', '"NULL"0000R0L0#1234[#1234|NRP]_12:00:00,01-01-2026']) {
    const d = handle(body);
    assert.is(d.action, 'ack');
    assert.is(d.linkTest, true);
    assert.equal(d.events, []);
    assert.is(latin1(d.reply), '\n181A0014"ACK"0000R0L0#1234[]\r');
  }
});

test('leading zeros and lower-case hex in the account are echoed and stored as received', () => {
  const d = handle('"SIA-DCS"0005L0#00ab1[#00ab1|NRP]');
  assert.ok(latin1(d.reply).includes('"ACK"0005L0#00ab1[]'));
  assert.is(d.events[0]!.account, '00ab1');
  assert.is(d.events[0]!.eventClass, 'link_test');
});

test('the account in the data is used when the header has none', () => {
  const d = handle('"SIA-DCS"0005L0[#0042|NBA1]');
  assert.is(d.action, 'ack');
  assert.ok(latin1(d.reply).endsWith('"ACK"0005L0[]\r'));
  assert.is(d.events[0]!.account, '0042');
});

test('an unknown SIA code is stored, not refused', () => {
  const d = handle('"SIA-DCS"0006L0#1234[#1234|NZX99]');
  assert.is(d.action, 'ack');
  assert.equal(
    d.events.map((e) => [e.code, e.zoneNo, e.eventClass]),
    [['ZX', '99', 'other']],
  );
});

test('ti with seconds inside SIA data is kept as a modifier', () => {
  const d = handle('"SIA-DCS"0007L0#1234[#1234|Nti12:30:45/id3/ri1/CL3]');
  assert.equal(d.events[0]!.modifiers, { ti: '12:30:45', id: '3', ri: '1' });
  assert.is(d.events[0]!.zoneNo, '3');
});

const KEYS: Array<[string, string]> = [
  ['16 ASCII', 'ABCDEFGHIJKLMNOP'],
  ['24 ASCII', 'ABCDEFGHIJKLMNOPQRSTUVWX'],
  ['32 ASCII', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345'],
  ['32 hex', '000102030405060708090A0B0C0D0E0F'],
  ['48 hex', '000102030405060708090A0B0C0D0E0F1011121314151617'],
  ['64 hex', '000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F'],
];

test('every token, encrypted with 16, 24 and 32-byte keys in ASCII and hex form, is ACKed with a *ACK', () => {
  const tokens: Array<[BuildMessageOptions['token'], string]> = [
    ['SIA-DCS', '#1234|Nri1/BA01'],
    ['ADM-CID', '#1234|1130 01 015'],
    ['NULL', ''],
  ];
  for (const [label, text] of KEYS) {
    const key = parseKey(text);
    for (const [token, data] of tokens) {
      const d = send({ token, data, key, receiver: 'ABC' }, { key });
      assert.is(d.action, 'ack', `${label} ${token}: ${d.reason}`);
      assert.is(d.events.length, token === 'NULL' ? 0 : 1);
      if (token !== 'NULL') assert.is(d.events[0]!.encrypted, true);
      const reply = parseReply(bodyOf(d.reply!), key);
      assert.equal(
        [reply?.kind, reply?.encrypted, reply?.opened, reply?.sequence, reply?.receiver, reply?.timestamp],
        ['ACK', true, true, '0007', 'ABC', NOW],
      );
    }
  }
});

test('the *ACK bytes are exact for a fixed pad', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  const d = send({ token: 'NULL', data: '', key, sequence: 12 }, { key });
  const expected = `"*ACK"0012L0#1234[${aesHex(`${'!'.repeat(10)}|]_12:00:00,01-01-2026`, key)}`;
  assert.is(bodyOf(d.reply!).toString('latin1'), expected);
});

test('every token plain is ACKed with a plain ACK', () => {
  for (const [token, data] of [
    ['SIA-DCS', '#1234|NBA1'],
    ['ADM-CID', '#1234|1401 01 001'],
    ['NULL', ''],
  ] as const) {
    const d = send({ token, data });
    assert.is(d.action, 'ack', token);
    assert.is(latin1(d.reply), '\n04210012"ACK"0007L0#1234[]\r');
  }
});

test('an encrypted message without a configured key gets a plain DUH echoing its header', () => {
  const d = send({ key: parseKey('ABCDEFGHIJKLMNOP'), receiver: 5 });
  assert.is(d.action, 'duh');
  assert.is(latin1(d.reply), '\nB3270014"DUH"0007R5L0#1234[]\r');
  assert.equal(d.events, []);
});

test('an encrypted message under another key gets a DUH', () => {
  const d = send({ key: parseKey('ABCDEFGHIJKLMNOP') }, { key: parseKey('ABCDEFGHIJKLMNOQ') });
  assert.is(d.action, 'duh');
  assert.ok(d.reason?.includes('decrypt'));
});

test('requireEncryption: a plain message gets a DUH, an encrypted one an ACK', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  assert.is(send({}, { key, requireEncryption: true }).action, 'duh');
  assert.is(send({ token: 'NULL', data: '' }, { key, requireEncryption: true }).action, 'duh');
  assert.is(send({ key }, { key, requireEncryption: true }).action, 'ack');
});

test('time window edges on encrypted messages: -40 s and +20 s pass, -41 s and +21 s get a NAK with the receiver time', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  const at = (offsetS: number): FrameDecision => send({ key, timestamp: NOW + offsetS * 1000 }, { key });
  assert.is(at(-40).action, 'ack');
  assert.is(at(20).action, 'ack');
  for (const off of [-41, 21]) {
    const d = at(off);
    assert.is(d.action, 'nak', String(off));
    assert.is(latin1(d.reply), NAK_AT_NOW);
    assert.equal(d.events, []);
  }
});

test('the window compares whole seconds and honours configured widths', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  assert.is(send({ key, timestamp: NOW - 40_000 }, { key, now: NOW + 999 }).action, 'ack');
  assert.is(send({ key, timestamp: NOW - 60_000 }, { key, windowPastS: 60 }).action, 'ack');
  assert.is(send({ key, timestamp: NOW + 5_000 }, { key, windowFutureS: 4 }).action, 'nak');
});

test('an encrypted message without a timestamp, or with an impossible one, gets a NAK', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  assert.is(send({ key, timestamp: null }, { key }).action, 'nak');
  const body = `"*NULL"0001L0#1234[${aesHex(`${'!'.repeat(10)}|]_25:00:00,01-01-2026`, key)}`;
  assert.is(handle(body, { key }).action, 'nak');
});

test('plain timestamps are only tested when checkPlainTimestamps is set', () => {
  assert.is(send({ timestamp: NOW - 3600_000 }).action, 'ack');
  assert.is(send({ timestamp: NOW - 40_000 }, { checkPlainTimestamps: true }).action, 'ack');
  assert.is(send({ timestamp: NOW + 20_000 }, { checkPlainTimestamps: true }).action, 'ack');
  assert.is(latin1(send({ timestamp: NOW - 41_000 }, { checkPlainTimestamps: true }).reply), NAK_AT_NOW);
  assert.is(send({ timestamp: NOW + 21_000 }, { checkPlainTimestamps: true }).action, 'nak');
  assert.is(send({ timestamp: null }, { checkPlainTimestamps: true }).action, 'ack'); // optional when plain
});

test('a panel clock on local time is accepted only with acceptLocalTime, and its time is corrected to UTC', () => {
  const key = parseKey('ABCDEFGHIJKLMNOP');
  const local = NOW + 2 * 3600_000; // panel at UTC+2 writes its local clock
  assert.is(send({ key, timestamp: local }, { key }).action, 'nak');
  const known = send({ key, timestamp: local - 5000 }, { key, acceptLocalTime: true, localOffsetMinutes: 120 });
  assert.is(known.action, 'ack');
  assert.is(known.events[0]!.deviceTime, NOW - 5000);
  assert.is(known.events[0]!.deviceTimeText, '13:59:55,01-01-2026');
  assert.is(send({ key, timestamp: local }, { key, acceptLocalTime: true, localOffsetMinutes: 60 }).action, 'nak');
  const guessed = send({ key, timestamp: NOW - 5.5 * 3600_000 }, { key, acceptLocalTime: true });
  assert.is(guessed.action, 'ack');
  assert.is(guessed.events[0]!.deviceTime, NOW);
  assert.is(send({ key, timestamp: NOW - 15 * 3600_000 }, { key, acceptLocalTime: true }).action, 'nak');
});

test('a 6-character receiver password works end to end', () => {
  const key = receiverPasswordKey('a1b2c3');
  const d = send({ key }, { key });
  assert.is(d.action, 'ack');
  assert.is(d.events[0]!.code, 'BA');
});

test('an unknown token gets a DUH echoing its header', () => {
  const d = handle('"ADM-415"0007R1L2#1234[#1234|whatever]');
  assert.is(d.action, 'duh');
  assert.is(latin1(d.reply), '\nBFE70014"DUH"0007R1L2#1234[]\r');
});

test('well-formed but unprocessable messages get a DUH', () => {
  const cases = [
    '"SIA-DCS"0001L0#1234[!!!]',
    '"SIA-DCS"0001L0#1234[]',
    '"ADM-CID"0001L0#1234[#1234|9999]',
    '"SIA-DCS"0001L0[NBA1]',
    '"SIA-DCS"0001L0[#12|NBA1]',
    '"SIA-DCS"0001L0#12G4[#1234|NBA1]',
    '"SIA-DCS"0001L0#1234[#1234|NBA1]junk',
  ];
  for (const body of cases) {
    const d = handle(body);
    assert.is(d.action, 'duh', body);
    assert.ok(latin1(d.reply).includes('"DUH"0001'), body);
    assert.equal(d.events, []);
  }
});

test('device-link bodies and replies get no answer', () => {
  const link = handle('"VL-HELLO"0001#1234[ABCDEF]');
  assert.equal([link.action, link.reply, link.foreign?.token], ['ignore', null, 'VL-HELLO']);
  assert.equal([handle('"ACK"0001L0#1234[]').action, handle('"NAK"0000R0L0A0[]').action], ['ignore', 'ignore']);
});

test.run();
