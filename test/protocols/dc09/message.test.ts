import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMessage, type ParsedMessage, type ParseResult } from '../../../src/protocols/dc09/message.js';

const parse = (body: string): ParseResult => parseMessage(Buffer.from(body, 'latin1'));
function message(body: string): ParsedMessage {
  const r = parse(body);
  if (r.kind !== 'message') throw new Error(`expected a message, got ${JSON.stringify(r)}`);
  return r;
}

test('a full SIA-DCS message is split into its fields exactly', () => {
  assert.equal(message('"SIA-DCS"0123R1AL2B#00ab12[#00ab12|Nri1/BA01][XE12.5][Vhttp://cam/1]_12:30:45,10-07-2026'), {
    kind: 'message',
    token: 'SIA-DCS',
    encrypted: false,
    sequence: '0123',
    receiver: '1A',
    line: '2B',
    account: '00ab12',
    data: '#00ab12|Nri1/BA01',
    cipherHex: null,
    extended: [
      { id: 'X', value: 'E12.5' },
      { id: 'V', value: 'http://cam/1' },
    ],
    timestampText: '12:30:45,10-07-2026',
    timestamp: Date.UTC(2026, 9, 7, 12, 30, 45),
  });
});

test('missing R and L stay absent instead of becoming placeholders', () => {
  const m = message('"NULL"0000#1234[]');
  assert.ok(!('receiver' in m) && !('line' in m));
  assert.is(m.account, '1234');
  const onlyLine = message('"ADM-CID"0001L0#1002[#1002|1602 00 001]');
  assert.ok(!('receiver' in onlyLine));
  assert.is(onlyLine.line, '0');
});

test('an encrypted message keeps the hex after "[" and no data until opened', () => {
  const m = message('"*SIA-DCS"5994L0#AAA[5AB718E008C616BF');
  assert.is(m.encrypted, true);
  assert.is(m.token, 'SIA-DCS');
  assert.is(m.cipherHex, '5AB718E008C616BF');
  assert.is(m.data, null);
});

test('a timestamp without "_" is tolerated; an impossible date keeps its text but no time', () => {
  assert.is(message('"NULL"0000#1234[]12:00:00,01-01-2026').timestamp, Date.UTC(2026, 0, 1, 12));
  const m = message('"NULL"0000#1234[]_12:00:00,02-30-2026');
  assert.is(m.timestampText, '12:00:00,02-30-2026');
  assert.is(m.timestamp, null);
  assert.is(message('"NULL"0000#1234[]_24:00:00,01-01-2026').timestamp, null);
});

test('device-link bodies are reported as foreign for the receiver to route', () => {
  const body = Buffer.from('"VL-HELLO"0001#1234[ABC]');
  assert.equal(parseMessage(body), { kind: 'foreign', token: 'VL-HELLO', body });
  assert.is((parseMessage(Buffer.from('"*VL-CMD"0001[00]')) as { token: string }).token, '*VL-CMD');
});

test('an unknown token is a failure that still carries the header for the DUH', () => {
  assert.equal(parse('"ADM-415"0007R1L2#1234[#1234|whatever]'), {
    kind: 'invalid',
    reason: 'unknown-token',
    detail: 'unsupported ID token "ADM-415"',
    header: { token: 'ADM-415', encrypted: false, sequence: '0007', receiver: '1', line: '2', account: '1234' },
  });
});

test('replies are recognised so a receiver never answers them', () => {
  for (const body of [
    '"ACK"0001L0#1234[]',
    '"NAK"0000R0L0A0[]_12:00:00,01-01-2026',
    '"*ACK"0001#12[00]',
    '"DUH"0001[]',
  ]) {
    assert.is((parse(body) as { reason?: string }).reason, 'reply-token', body);
  }
});

test('malformed headers are format or account failures', () => {
  const cases: Array<[string, string]> = [
    ['SIA-DCS"0001#1234[]', 'format'],
    ['"SIA-DCS0001#1234[]', 'format'],
    ['"SIA-DCS"001#1234[]', 'format'],
    ['"SIA-DCS"0001R1234567#1234[]', 'format'],
    ['"SIA-DCS"0001R#1234[]', 'format'],
    ['"SIA-DCS"0001LZ#1234[]', 'format'],
    ['"SIA-DCS"0001#12G4[]', 'account'],
    ['"SIA-DCS"0001#12[]', 'account'],
    ['"SIA-DCS"0001#12345678901234567[]', 'account'],
    ['"SIA-DCS"0001#1234', 'format'],
    ['"SIA-DCS"0001#1234[#1234|Nri1/BA01', 'format'],
    ['"SIA-DCS"0001#1234[#1234|N[ri1]', 'format'],
    ['"SIA-DCS"0001#1234[#1234|Nri1/BA01][X1', 'format'],
    ['"SIA-DCS"0001#1234[#1234|Nri1/BA01]junk', 'format'],
    ['', 'format'],
  ];
  for (const [body, reason] of cases) assert.is((parse(body) as { reason?: string }).reason, reason, body);
});

test('a non-hex account is echoed in the failure header when it is safe to echo', () => {
  assert.is((parse('"SIA-DCS"0001#12G4[]') as { header: { account?: string } }).header.account, '12G4');
});

test.run();
