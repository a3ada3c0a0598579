/**
 * The two protocol drivers without sockets: DC-09 sequence numbers and reply matching, MLR2 surplus ACKs, and what
 * cannot be sent.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { Dc09Driver, Mlr2Driver, type OutgoingEvent } from '../../src/outputs/index.js';
import { buildAck, buildDuh, buildNak, parseReply } from '../../src/protocols/dc09/index.js';
import { sampleEvent } from '../store/helpers/store-fixture.js';
import type { StoredEvent } from '../../src/core/event-row.js';

function stored(overrides: Record<string, unknown> = {}): StoredEvent {
  const e = sampleEvent(overrides);
  return {
    id: 1,
    receivedAt: e.receivedAt,
    deviceTime: null,
    deviceTimeText: null,
    receiverId: e.receiverId,
    receiverKind: e.receiverKind,
    transport: null,
    remoteAddress: null,
    objectId: null,
    account: e.account,
    dc09Receiver: null,
    dc09Line: null,
    sequence: null,
    protocol: e.protocol,
    encrypted: false,
    eventClass: e.eventClass,
    qualifier: e.qualifier ?? null,
    code: e.code ?? null,
    groupNo: e.groupNo ?? null,
    zoneNo: e.zoneNo ?? null,
    text: null,
    flags: 0,
    raw: Buffer.alloc(0),
  };
}

const out = (event: StoredEvent, account = event.account): OutgoingEvent => ({ event, account });

function dc09(clock = new ManualClock()): Dc09Driver {
  return new Dc09Driver({ receiver: 1, line: 1, supervisionAccount: '0001', key: null, clock });
}

function reply(frame: Buffer) {
  return parseReply(frame.subarray(9, frame.length - 1))!;
}

test('DC-09 sequence numbers run 0001..9999 and wrap to 0001', () => {
  const driver = dc09();
  const first = driver.supervision().frame().toString('latin1');
  assert.match(first, /"NULL"0001R1L1#0001\[\]_/);
  for (let i = 2; i <= 9999; i++) driver.supervision();
  assert.match(driver.supervision().frame().toString('latin1'), /"NULL"0001R1L1#0001\[\]/);
});

test('DC-09 replies: ACK of the sequence acks, another sequence or account is ignored, DUH refuses, NAK adopts the time', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const driver = dc09(clock);
  const ex = driver.event(
    out(stored({ protocol: 'ADM-CID', code: '130', qualifier: 'E', groupNo: '01', zoneNo: '015', account: '1234' })),
  );
  assert.ok(!('skip' in ex));
  if ('skip' in ex) return;
  const header = { token: 'ADM-CID', encrypted: false, sequence: '0001', receiver: '1', line: '1', account: '1234' };
  assert.is(ex.reply(reply(buildAck(header, { now: clock.now() }))), 'ack');
  assert.is(ex.reply(reply(buildAck({ ...header, sequence: '0002' }, { now: clock.now() }))), 'ignore');
  assert.is(ex.reply(reply(buildAck({ ...header, account: '9999' }, { now: clock.now() }))), 'ignore');
  assert.is(ex.reply(reply(buildDuh(header))), 'refused');
  assert.is(driver.clockOffsetMs, 0);
  assert.is(ex.reply(reply(buildNak(clock.now() - 90_000))), 'nak');
  assert.is(driver.clockOffsetMs, -90_000);
  assert.match(ex.frame().toString('latin1'), /_11:58:30,01-01-2026\r$/);
});

test('DC-09: accounts are padded to 3 digits; what does not fit is skipped with a reason', () => {
  const driver = dc09();
  const short = driver.event(
    out(stored({ protocol: 'ADM-CID', code: '1', qualifier: 'R', groupNo: '', zoneNo: '' }), '7'),
  );
  assert.ok(!('skip' in short) && short.frame().toString('latin1').includes('#007[#007|3001 00 000]'));
  assert.equal(driver.event(out(stored(), 'XYZ')), { skip: 'account "XYZ" is not 1 to 16 hex digits' });
  assert.equal(driver.event(out(stored({ protocol: 'ADM-CID', code: '1234', qualifier: 'E' }))), {
    skip: 'no Contact ID or SIA event code ("1234", protocol ADM-CID)',
  });
});

test('MLR2: after an ACK that followed unanswered copies, that many ACKs are set aside; NAKs are never swallowed', () => {
  const driver = new Mlr2Driver({ variant: 'MLR2', route: { receiver: 1, line: 1 }, ackTimeoutMs: 10_000 });
  driver.settled(2);
  assert.equal(driver.read(Buffer.from([0x06, 0x15, 0x06, 0x06])), ['nak', 'ack']);
  driver.settled(1);
  driver.reset();
  assert.equal(driver.read(Buffer.from([0x06])), ['ack'], 'a new connection cannot carry late ACKs of the old one');
});

test('MLR2: surplus ACKs are only set aside for one ACK timeout', async () => {
  const driver = new Mlr2Driver({ variant: 'MLR2', route: { receiver: 1, line: 1 }, ackTimeoutMs: 20 });
  driver.settled(1);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(driver.read(Buffer.from([0x06])), ['ack']);
});

test('MLR2: event shapes — internal events go out as Contact ID, SIA rows as SIA, others are skipped', () => {
  const driver = new Mlr2Driver({ variant: 'MLR2', route: { receiver: 1, line: 1 }, ackTimeoutMs: 1000 });
  const internal = driver.event(
    out(stored({ protocol: 'INTERNAL', qualifier: 'R', code: '354', groupNo: '00', zoneNo: '000' }), '00AB'),
  );
  assert.ok(!('skip' in internal) && internal.frame().toString('latin1') === '5011 1800ABR35400000\x14');
  const siaRow = driver.event(
    out(stored({ protocol: 'SIA-DCS', qualifier: null, code: 'FA', groupNo: '2', zoneNo: '7' }), '1234'),
  );
  assert.ok(!('skip' in siaRow) && siaRow.frame().toString('latin1') === '3011      1234FA0007\x14');
  assert.equal(driver.event(out(stored({ protocol: 'SIA-DCS', code: null }))), {
    skip: 'SIA event without a two-letter code ("")',
  });
  assert.equal(driver.supervision().frame().toString('latin1'), '1011           @    \x14');
});

test.run();
