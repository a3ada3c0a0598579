import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildMessage } from '../../../src/protocols/dc09/encoder.js';
import { receiverPasswordKey } from '../../../src/protocols/dc09/crypto.js';
import { interpretSms } from '../../../src/protocols/sms/payload.js';

const NOW = Date.UTC(2026, 10, 23, 22, 0, 0);
const SENT = NOW - 3 * 3600_000;
const KEY = receiverPasswordKey('0123456789ABCDEF');

test('a DC-09 frame with its LF/CR, or without, gives the same events', () => {
  const frame = buildMessage({ token: 'SIA-DCS', sequence: 1, account: '1234', data: '#1234|Nri1/BA01' }).toString(
    'latin1',
  );
  const a = interpretSms(frame, { key: null, now: NOW, sentAt: SENT });
  const b = interpretSms(frame.trim(), { key: null, now: NOW, sentAt: SENT });
  assert.is(a.kind, 'dc09');
  assert.equal(a, b);
  assert.is(a.account, '1234');
  assert.is(a.events[0]!.code, 'BA');
  assert.is(a.events[0]!.eventClass, 'alarm');
  // No timestamp in the frame: the SMS centre's time is the device time.
  assert.is(a.events[0]!.deviceTime, SENT);
});

test('an encrypted frame hours old is opened and not refused by the time window; its own timestamp wins', () => {
  const stamp = NOW - 5 * 3600_000;
  const frame = buildMessage({
    token: 'ADM-CID',
    sequence: 2,
    account: '5678',
    data: '#5678|1130 01 004',
    timestamp: stamp,
    key: KEY,
  }).toString('latin1');
  const r = interpretSms(frame.trim(), { key: KEY, now: NOW, sentAt: SENT });
  assert.is(r.kind, 'dc09');
  assert.ok(r.events[0]!.encrypted);
  assert.is(r.events[0]!.code, '130');
  assert.is(r.events[0]!.deviceTime, stamp);
});

test('a NULL frame is a link test without events', () => {
  const frame = buildMessage({ token: 'NULL', sequence: 3, account: '1234', data: '' }).toString('latin1');
  const r = interpretSms(frame, { key: null, now: NOW, sentAt: SENT });
  assert.equal([r.kind, r.linkTest, r.events.length, r.account], ['dc09', true, 0, '1234']);
});

test('a damaged frame, or one that cannot be opened, is journaled as corrupt', () => {
  const frame = buildMessage({ token: 'SIA-DCS', sequence: 1, account: '1234', data: '#1234|Nri1/BA01' })
    .toString('latin1')
    .trim();
  const damaged = interpretSms(frame.replace('BA01', 'BA02'), { key: null, now: NOW, sentAt: SENT });
  assert.is(damaged.kind, 'corrupt');
  assert.is(damaged.events[0]!.protocol, 'SMS-CORRUPT');
  assert.is(damaged.events[0]!.eventClass, 'other');
  assert.ok(damaged.events[0]!.text!.startsWith('DC-09 frame rejected (crc): '));
  const locked = buildMessage({
    token: 'SIA-DCS',
    sequence: 1,
    account: '1234',
    data: '#1234|Nri1/BA01',
    timestamp: NOW,
    key: KEY,
  }).toString('latin1');
  assert.is(interpretSms(locked, { key: null, now: NOW, sentAt: SENT }).kind, 'corrupt');
});

test('Contact ID: valid, and a bad checksum is corrupt, never an alarm', () => {
  const ok = interpretSms('1234 18 1 131 01 015 8', { key: null, now: NOW, sentAt: SENT });
  assert.is(ok.kind, 'contact-id');
  assert.equal(
    { ...ok.events[0]! },
    {
      protocol: 'CONTACT-ID',
      account: '1234',
      sequence: null,
      encrypted: false,
      eventClass: 'alarm',
      code: '131',
      deviceTime: SENT,
      deviceTimeText: null,
      qualifier: 'E',
      groupNo: '01',
      zoneNo: '015',
    },
  );
  const bad = interpretSms('1234181131010159', { key: null, now: NOW, sentAt: SENT });
  assert.equal(
    [bad.kind, bad.account, bad.events[0]!.eventClass, bad.events[0]!.code],
    ['corrupt', null, 'other', null],
  );
  assert.is(bad.events[0]!.text, 'Contact ID checksum error: 1234181131010159');
});

test('a receiver with a key refuses plain frames and Contact ID; only an opened encrypted frame is authenticated', () => {
  const plain = buildMessage({ token: 'NULL', sequence: 4, account: '1234', data: '' }).toString('latin1');
  const refusedFrame = interpretSms(plain, { key: KEY, now: NOW, sentAt: SENT });
  assert.equal(
    [refusedFrame.kind, refusedFrame.account, refusedFrame.linkTest, refusedFrame.authenticatedAt],
    ['refused', null, false, null],
  );
  assert.is(
    refusedFrame.events[0]!.text,
    `DC-09 message not accepted (unencrypted message on a receiver that requires encryption): ${plain}`,
  );
  const refusedCid = interpretSms('1234 18 1 131 01 015 8', { key: KEY, now: NOW, sentAt: SENT });
  assert.equal(
    [refusedCid.kind, refusedCid.account, refusedCid.events[0]!.protocol, refusedCid.events[0]!.account],
    ['refused', null, 'SMS-CORRUPT', ''],
  );
  assert.is(refusedCid.events[0]!.text, 'plain Contact ID refused: the receiver has a key: 1234 18 1 131 01 015 8');
  // Text without an account is no account's message: journaled as it is.
  assert.is(interpretSms('Power failure', { key: KEY, now: NOW, sentAt: SENT }).kind, 'text');
  const stamp = NOW - 60_000;
  const locked = buildMessage({
    token: 'NULL',
    sequence: 5,
    account: '1234',
    data: '',
    timestamp: stamp,
    key: KEY,
  }).toString('latin1');
  assert.equal(interpretSms(locked, { key: KEY, now: NOW, sentAt: SENT }).authenticatedAt, stamp);
  assert.is(interpretSms(plain, { key: null, now: NOW, sentAt: SENT }).authenticatedAt, null);
});

test('anything else is an unparsed SMS with its text', () => {
  const r = interpretSms('Power failure at the warehouse', { key: null, now: NOW, sentAt: SENT });
  assert.is(r.kind, 'text');
  assert.equal(
    [r.events[0]!.protocol, r.events[0]!.text, r.events[0]!.account, r.account],
    ['SMS-TEXT', 'Power failure at the warehouse', '', null],
  );
});

test.run();
