import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { parseReply } from '../../src/protocols/dc09/replies.js';
import { buildAck, buildDuh, buildNak } from '../../src/protocols/dc09/replies.js';
import { buildMessage } from '../../src/protocols/dc09/encoder.js';
import { openMessage, parseMessage, type ParsedMessage } from '../../src/protocols/dc09/message.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { DeviceClock } from '../../src/sim/device-clock.js';
import { EventBudget } from '../../src/sim/event-budget.js';
import type { FrameHeader } from '../../src/sim/event-data.js';
import { SimStats } from '../../src/sim/sim-stats.js';
import { Transmitter } from '../../src/sim/transmitter.js';

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5);
const PAD = (n: number): Buffer => Buffer.alloc(n, 0x41);
const KEY = Buffer.from('0123456789abcdef', 'latin1');

interface Rig {
  tx: Transmitter;
  sent: Buffer[];
  stats: SimStats;
  host: ManualClock;
  mono: { now: number };
  clock: DeviceClock;
}

function rig(
  over: {
    header?: Partial<FrameHeader>;
    window?: number;
    maxRetries?: number;
    saturate?: boolean;
    budget?: number | null;
  } = {},
): Rig {
  const sent: Buffer[] = [];
  const stats = new SimStats();
  const host = new ManualClock(T0);
  const mono = { now: 1000 };
  const clock = new DeviceClock(host);
  const header: FrameHeader = {
    token: 'SIA-DCS',
    account: '001000',
    receiver: null,
    line: null,
    key: null,
    timestamps: true,
    ...over.header,
  };
  const tx = new Transmitter(
    {
      header,
      window: over.window ?? 1,
      ackTimeoutMs: 500,
      maxRetries: over.maxRetries ?? 2,
      saturate: over.saturate ?? false,
      maxQueue: 100,
    },
    {
      stats,
      budget: new EventBudget(over.budget === undefined ? 1000 : over.budget),
      clock,
      monotonic: () => mono.now,
      send: (frame) => {
        sent.push(frame);
        return true;
      },
      randomBytes: PAD,
    },
  );
  return { tx, sent, stats, host, mono, clock };
}

function body(frame: Buffer): Buffer {
  const items = new Dc09Framer().push(frame);
  const item = items[0];
  if (item?.kind !== 'frame') throw new Error('not a frame');
  return item.body;
}

function message(frame: Buffer, key: Buffer | null = null): ParsedMessage {
  const parsed = parseMessage(body(frame));
  if (parsed.kind !== 'message') throw new Error('not a message');
  return key ? openMessage(parsed, key)! : parsed;
}

function ack(frame: Buffer, key: Buffer | null = null, now = T0): ReturnType<typeof parseReply> & object {
  return parseReply(body(buildAck(message(frame, key), { now, key, randomBytes: PAD })), key)!;
}

test('the first event is exactly the DC-09 frame buildMessage makes: sequence 0001, BA on zone 001, timestamp', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(1);
  assert.equal(r.sent.length, 1);
  const expected = buildMessage({
    token: 'SIA-DCS',
    sequence: '0001',
    account: '001000',
    data: '#001000|Nri01/BA001',
    timestamp: T0,
  });
  assert.equal(r.sent[0]!.toString('latin1'), expected.toString('latin1'));
  assert.equal(body(r.sent[0]!).toString('latin1'), '"SIA-DCS"0001#001000[#001000|Nri01/BA001]_03:04:05,01-02-2026');
  assert.equal(r.stats.eventsSent, 1);
});

test('window 1: the second event waits for the ACK of the first, then goes with sequence 0002 and BR001', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(2);
  assert.equal(r.sent.length, 1);
  r.mono.now += 7;
  r.tx.onReply(ack(r.sent[0]!));
  assert.equal(r.sent.length, 2);
  assert.equal(body(r.sent[1]!).toString('latin1'), '"SIA-DCS"0002#001000[#001000|Nri01/BR001]_03:04:05,01-02-2026');
  assert.equal(r.stats.eventsAcked, 1);
  assert.ok(Math.abs(r.stats.latency.percentile(50) - 7) < 0.01);
});

test('ADM-CID with receiver and line fields, no timestamp: exact body', () => {
  const r = rig({ header: { token: 'ADM-CID', receiver: '12', line: '3', timestamps: false } });
  r.tx.setOpen(true);
  r.tx.enqueueEvents(1);
  assert.equal(body(r.sent[0]!).toString('latin1'), '"ADM-CID"0001R12L3#001000[#001000|1130 01 001]');
});

test('an ACK for another sequence or account completes nothing', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(2);
  const other = buildMessage({ token: 'SIA-DCS', sequence: '0005', account: '001000', data: '#001000|Nri01/BA001' });
  r.tx.onReply(ack(other));
  const stranger = buildMessage({ token: 'SIA-DCS', sequence: '0001', account: '009999', data: '#009999|Nri01/BA001' });
  r.tx.onReply(ack(stranger));
  assert.equal(r.sent.length, 1);
  assert.equal(r.stats.unmatchedReplies, 2);
  assert.equal(r.stats.eventsAcked, 0);
});

test('no ACK within the timeout: the same sequence is sent again with a fresh timestamp, then given up after maxRetries', () => {
  const r = rig({ maxRetries: 2 });
  r.tx.setOpen(true);
  r.tx.enqueueEvents(1);
  r.tx.tick(r.mono.now + 499);
  assert.equal(r.sent.length, 1);
  r.host.advance(3000);
  r.mono.now += 500;
  r.tx.tick(r.mono.now);
  assert.equal(r.sent.length, 2);
  assert.equal(body(r.sent[1]!).toString('latin1'), '"SIA-DCS"0001#001000[#001000|Nri01/BA001]_03:04:08,01-02-2026');
  r.mono.now += 500;
  r.tx.tick(r.mono.now);
  r.mono.now += 500;
  r.tx.tick(r.mono.now);
  assert.equal(r.sent.length, 3, 'one first transmission + 2 retries');
  assert.equal(r.stats.retransmits, 2);
  assert.equal(r.stats.ackTimeouts, 3);
  assert.equal(r.stats.eventsFailed, 1);
  assert.ok(r.tx.idle);
});

test('NAK: the clock is set from the NAK time and the oldest message goes again with the corrected timestamp', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(1);
  const receiverTime = T0 + 3600_000; // the panel is one hour behind
  r.tx.onReply(parseReply(body(buildNak(receiverTime)))!);
  assert.equal(r.stats.naks, 1);
  assert.equal(r.sent.length, 2);
  assert.equal(body(r.sent[1]!).toString('latin1'), '"SIA-DCS"0001#001000[#001000|Nri01/BA001]_04:04:05,01-02-2026');
  r.tx.onReply(ack(r.sent[1]!));
  assert.equal(r.stats.eventsAcked, 1);
});

test('DUH: the message is dropped (sending it again would not help) and the next one goes', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(2);
  r.tx.onReply(parseReply(body(buildDuh(message(r.sent[0]!))))!);
  assert.equal(r.stats.duhs, 1);
  assert.equal(r.stats.eventsFailed, 1);
  assert.equal(r.sent.length, 2);
  assert.equal(message(r.sent[1]!).sequence, '0002');
});

test('sequence numbers run 0001..9999 then wrap to 0001, never 0000', () => {
  const r = rig({ saturate: true, budget: 10_000 });
  r.tx.setOpen(true);
  const seen: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const last = r.sent[r.sent.length - 1]!;
    const m = message(last);
    seen.push(m.sequence);
    r.tx.onReply(parseReply(body(buildAck(m, { now: T0 })))!);
  }
  assert.equal(seen[0], '0001');
  assert.equal(seen[9998], '9999');
  assert.equal(seen[9999], '0001');
  assert.not.ok(seen.includes('0000'));
});

test('path closed: the message in flight is sent again, same sequence, when the path reopens', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(1);
  r.tx.pathClosed();
  assert.equal(r.sent.length, 1);
  r.tx.setOpen(true);
  assert.equal(r.sent.length, 2);
  assert.equal(message(r.sent[1]!).sequence, '0001');
  assert.equal(r.stats.retransmits, 1);
});

test('window 3 keeps three messages in flight and accepts their ACKs in any order', () => {
  const r = rig({ window: 3 });
  r.tx.setOpen(true);
  r.tx.enqueueEvents(5);
  assert.equal(r.sent.length, 3);
  r.tx.onReply(ack(r.sent[2]!));
  r.tx.onReply(ack(r.sent[0]!));
  assert.equal(r.sent.length, 5);
  assert.equal(r.stats.eventsAcked, 2);
});

test('encrypted: the frame opens with the key to the expected data; *ACK completes; an *ACK under another key does not', () => {
  const r = rig({ header: { key: KEY } });
  r.tx.setOpen(true);
  r.tx.enqueueEvents(2);
  const m = message(r.sent[0]!, KEY);
  assert.ok(m.encrypted);
  assert.equal(m.data, '#001000|Nri01/BA001');
  assert.equal(m.timestampText, '03:04:05,01-02-2026');
  const wrongKey = Buffer.from('fedcba9876543210', 'latin1');
  const forged = parseReply(body(buildAck(m, { now: T0, key: wrongKey, randomBytes: PAD })), KEY)!;
  r.tx.onReply(forged);
  assert.equal(r.stats.unopenedReplies, 1);
  assert.equal(r.stats.eventsAcked, 0);
  r.tx.onReply(ack(r.sent[0]!, KEY));
  assert.equal(r.stats.eventsAcked, 1);
  assert.equal(r.sent.length, 2);
});

test('a NULL link test is a message like the others but counted apart', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.requestLinkTest();
  assert.equal(body(r.sent[0]!).toString('latin1'), '"NULL"0001#001000[]_03:04:05,01-02-2026');
  r.tx.onReply(ack(r.sent[0]!));
  assert.equal(r.stats.linkTestsSent, 1);
  assert.equal(r.stats.linkTestsAcked, 1);
  assert.equal(r.stats.eventsAcked, 0);
});

test('the budget bounds the events: saturating with a budget of 3 sends 3 and then nothing', () => {
  const r = rig({ saturate: true, budget: 3 });
  r.tx.setOpen(true);
  for (let i = 0; i < 5; i++) {
    const last = r.sent[r.sent.length - 1]!;
    r.tx.onReply(ack(last));
  }
  assert.equal(r.sent.length, 3);
  assert.equal(r.stats.eventsAcked, 3);
  assert.ok(r.tx.idle);
});

test('drain: no new messages, a later timeout is counted as unanswered, not as a failure', () => {
  const r = rig();
  r.tx.setOpen(true);
  r.tx.enqueueEvents(3);
  r.tx.drain();
  r.mono.now += 600;
  r.tx.tick(r.mono.now);
  assert.equal(r.sent.length, 1);
  assert.equal(r.stats.unanswered, 1);
  assert.equal(r.stats.eventsFailed, 0);
  assert.ok(r.tx.idle);
});

test.run();
