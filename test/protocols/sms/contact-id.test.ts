import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contactIdChecksum, contactIdSum, parseContactId } from '../../../src/protocols/sms/contact-id.js';

test('DC-05 checksum: 0 counts 10, the sum is a multiple of 15, F stands for a remainder of 0', () => {
  // 1+2+3+4+1+8+1+1+3+1+10+1+10+1+5 = 52; 52 + 8 = 60.
  assert.is(contactIdChecksum('123418113101015'), '8');
  assert.is(contactIdSum('1234181131010158') % 15, 0);
  assert.is(contactIdChecksum('000018160200000'), contactIdChecksum('AAAA18160200AAA'));
  for (let n = 0; n < 200; n++) {
    const first =
      String(1000 + n * 37).padStart(4, '0') +
      '18' +
      '1' +
      String(100 + (n % 900)).padStart(3, '0') +
      '01' +
      String(n % 1000).padStart(3, '0');
    assert.is(contactIdSum(first + contactIdChecksum(first)) % 15, 0, first);
  }
});

test('a 16-digit message with or without spaces', () => {
  const m = parseContactId('1234 18 1 131 01 015 8');
  assert.equal(m, {
    kind: 'message',
    account: '1234',
    qualifier: 'E',
    code: '131',
    group: '01',
    zone: '015',
    digits: '1234181131010158',
  });
  assert.equal(parseContactId('1234181131010158\r\n'), m);
  const restore = '1234183131010015';
  assert.is(parseContactId(restore.slice(0, 15) + contactIdChecksum(restore.slice(0, 15))).kind, 'message');
});

test('a bad checksum or qualifier is corrupt; anything else is not Contact ID', () => {
  assert.equal(parseContactId('1234181131010159'), { kind: 'corrupt', digits: '1234181131010159', reason: 'checksum' });
  const badQ = '123418213101015';
  assert.equal(parseContactId(badQ + contactIdChecksum(badQ)), {
    kind: 'corrupt',
    digits: badQ + contactIdChecksum(badQ),
    reason: 'event qualifier 2',
  });
  for (const other of [
    '',
    '123418113101015',
    '12341811310101588',
    '1234 28 1 131 01 015 8',
    'ALARM ZONE 5',
    '12341811310101G8',
  ]) {
    assert.equal(parseContactId(other), { kind: 'none' }, other);
  }
});

test.run();
