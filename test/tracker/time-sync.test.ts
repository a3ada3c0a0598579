import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { Dc09Framer } from '../../src/protocols/dc09/frame.js';
import { decodeLinkBody, encodeTimeAck } from '../../src/protocols/device-link/codec.js';
import { LinkCommander } from '../../src/protocols/device-link/link-commander.js';
import type { DecodedLinkMessage } from '../../src/protocols/device-link/messages.js';
import type { InternalEventType } from '../../src/settings/schema.js';
import { TimeSync, type SyncableLink } from '../../src/tracker/time-sync.js';
import { ClockTimers, settle } from './helpers/clock-timers.js';

const MIN = 60_000;

class FakeLink implements SyncableLink {
  readonly calls: Array<number | undefined> = [];
  constructor(
    readonly objectId: number,
    public answer: boolean | 'throw' = true,
  ) {}
  async syncTime(utcOffsetMinutes?: number): Promise<boolean> {
    this.calls.push(utcOffsetMinutes);
    if (this.answer === 'throw') throw new Error('socket gone');
    return this.answer;
  }
}

function setup(links: FakeLink[], minutes = 10, newLinkPollMs = 5000) {
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const timers = new ClockTimers(clock);
  const raised: Array<[InternalEventType, string | null | undefined]> = [];
  const listeners = new Set<() => void>();
  const settings = { minutes };
  const sync = new TimeSync({
    links: { list: () => links },
    intervalMinutes: () => settings.minutes,
    watchInterval: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    raise: async (type, options) => {
      raised.push([type, options?.subject ? `#${options.subject.account}` : options?.detail]);
      return 1;
    },
    subject: (id) => ({ objectId: id, account: `A${id}`, receiverId: 1, receiverKind: 'tcp' }),
    clock,
    timers,
    logger: silentLogger,
    newLinkPollMs,
  });
  const change = (m: number): void => {
    settings.minutes = m;
    for (const l of listeners) l();
  };
  return { clock, timers, raised, sync, change };
}

test('every linked device gets VL-TIME at start, then each synchronize_device_time_interval minutes, not before', async () => {
  const links = [new FakeLink(1), new FakeLink(2)];
  const { timers, sync } = setup(links, 10);
  await sync.start();
  await settle();
  assert.equal(
    links.map((l) => l.calls.length),
    [1, 1],
    'at start',
  );
  timers.advance(10 * MIN - 1);
  await settle();
  assert.equal(
    links.map((l) => l.calls.length),
    [1, 1],
    'the polls for new links send nothing to known ones',
  );
  timers.advance(1);
  await settle();
  assert.equal(
    links.map((l) => l.calls.length),
    [2, 2],
  );
  timers.advance(10 * MIN);
  await settle();
  assert.equal(
    links.map((l) => l.calls.length),
    [3, 3],
  );
  assert.equal(links[0]!.calls, [undefined, undefined, undefined], 'no UTC offset: devices keep UTC');
  await sync.stop();
  timers.advance(60 * MIN);
  await settle();
  assert.equal(
    links.map((l) => l.calls.length),
    [3, 3],
    'nothing after stop',
  );
  assert.is(timers.armed, 0);
});

test('a device that links up later gets the time within the 5 s poll, once; a reconnect is a new link', async () => {
  const links: FakeLink[] = [];
  const { timers, sync } = setup(links, 60);
  await sync.start();
  const first = new FakeLink(7);
  links.push(first);
  timers.advance(4999);
  await settle();
  assert.is(first.calls.length, 0);
  timers.advance(1);
  await settle();
  assert.is(first.calls.length, 1);
  timers.advance(30_000);
  await settle();
  assert.is(first.calls.length, 1, 'once');
  const again = new FakeLink(7);
  links.splice(0, 1, again);
  timers.advance(5000);
  await settle();
  assert.is(again.calls.length, 1);
  await sync.stop();
});

test('a device that links up gets the time at once', async () => {
  const link = new FakeLink(7);
  const { sync } = setup([], 10);
  await sync.start();
  assert.is(await sync.linked(link), true);
  assert.is(link.calls.length, 1);
  await sync.stop();
});

test('an unacknowledged sync raises device_link_failed once per failure streak, with the object as subject', async () => {
  const bad = new FakeLink(3, false);
  const thrown = new FakeLink(4, 'throw');
  const good = new FakeLink(5);
  const { timers, sync, raised } = setup([bad, thrown, good], 1);
  await sync.start();
  for (let i = 0; i < 3; i++) {
    timers.advance(MIN);
    await settle();
  }
  assert.equal(raised, [
    ['device_link_failed', '#A3'],
    ['device_link_failed', '#A4'],
  ]);
  bad.answer = true;
  timers.advance(MIN);
  await settle();
  bad.answer = false;
  timers.advance(MIN);
  await settle();
  assert.equal(raised.length, 3, 'a new streak after a success raises again');
  await sync.stop();
});

test('runOnce reports what was sent and acknowledged', async () => {
  const { sync } = setup([new FakeLink(1), new FakeLink(2, false), new FakeLink(3)], 10);
  assert.equal(await sync.runOnce(), { sent: 3, acknowledged: 2, failed: 1 });
});

test('a changed interval restarts the schedule from the change', async () => {
  const link = new FakeLink(1);
  const { timers, sync, change } = setup([link], 60);
  await sync.start();
  timers.advance(30 * MIN);
  change(5);
  timers.advance(5 * MIN);
  await settle();
  assert.is(link.calls.length, 2, 'at start, then 5 min after the change');
  await sync.stop();
});

test('an interval of a year waits in slices no timer overflows', async () => {
  const link = new FakeLink(1);
  const { timers, sync } = setup([link], 525_600, 7 * 24 * 3600_000);
  await sync.start();
  assert.ok(timers.delays()[0]! <= 2_147_483_647);
  timers.advance(364 * 24 * 60 * MIN);
  await settle();
  assert.is(link.calls.length, 1, 'only the one at start');
  timers.advance(24 * 60 * MIN);
  await settle();
  assert.is(link.calls.length, 2);
  await sync.stop();
});

test('over a real LinkCommander: the device receives VL-TIME with the gateway time and its VL-ACK completes the sync', async () => {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 8, 30, 0));
  const timers = new ClockTimers(clock);
  const received: DecodedLinkMessage[] = [];
  let commander: LinkCommander | null = null;
  const framer = new Dc09Framer();
  commander = new LinkCommander({
    // The "device": decodes what the gateway wrote and acknowledges a VL-TIME with VL-ACK.
    send: (frame) => {
      for (const item of framer.push(frame)) {
        if (item.kind !== 'frame') continue;
        const message = decodeLinkBody(item.body, null) as DecodedLinkMessage;
        received.push(message);
        const ack = [...new Dc09Framer().push(encodeTimeAck({ seq: message.seq, timestamp: clock.now() }))][0]!;
        if (ack.kind === 'frame')
          queueMicrotask(() => commander!.handleMessage(decodeLinkBody(ack.body, null) as DecodedLinkMessage));
      }
      return true;
    },
    key: null,
    identity: () => ({ uid: 'ABCDEF' }),
    clock,
    timers,
  });
  const link = { objectId: 9, syncTime: (offset?: number) => commander!.syncTime(offset) };
  const sync = new TimeSync({
    links: { list: () => [link] },
    intervalMinutes: () => 1440,
    raise: async () => 1,
    subject: () => null,
    clock,
    timers,
    logger: silentLogger,
  });
  await sync.start();
  await settle();
  timers.advance(1440 * MIN);
  await settle();
  assert.is(received.length, 2);
  assert.equal(
    received.map((m) => [m.type, m.timestamp]),
    [
      ['time', Date.UTC(2026, 2, 1, 8, 30, 0)],
      ['time', Date.UTC(2026, 2, 2, 8, 30, 0)],
    ],
  );
  assert.equal(await sync.runOnce(), { sent: 1, acknowledged: 1, failed: 0 });
  await sync.stop();
});

test.run();
