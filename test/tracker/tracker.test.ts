import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StoredEvent } from '../../src/core/event-row.js';
import { settle } from './helpers/clock-timers.js';
import { T0, trackerFixture, type TrackerFixture } from './helpers/tracker-fixture.js';

const S = 1000;

/** Pings every 60 s three times: the object learns period 60 s (timeout 60×3+60 = 240 s by default). */
async function learnSixtySeconds(t: TrackerFixture, id: number): Promise<void> {
  await t.message(id, true);
  t.timers.advance(60 * S);
  await t.message(id, true);
  t.timers.advance(60 * S);
  await t.message(id, true);
}

async function events(t: TrackerFixture): Promise<StoredEvent[]> {
  await settle();
  await t.recorder.idle();
  return t.internalEvents();
}

function brief(e: StoredEvent): string {
  return `${e.qualifier}${e.code} ${e.groupNo} ${e.zoneNo} #${e.account} obj=${e.objectId} rx=${e.receiverId} ${e.text}`;
}

test('an object is unsupervised until two agreeing link-test gaps teach it its period, which is persisted', async () => {
  const t = await trackerFixture();
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    await t.message(obj.id, true);
    t.timers.advance(60 * S);
    await t.message(obj.id, true);
    assert.is(t.tracker.supervisor.state(obj.id)?.periodS, null, 'one gap is not enough');
    assert.is(t.object(obj.id).linkPeriodS, null);
    t.timers.advance(61 * S);
    await t.message(obj.id, true);
    assert.is(t.tracker.supervisor.state(obj.id)?.periodS, 61, 'the larger of two agreeing gaps');
    const record = t.object(obj.id);
    assert.equal([record.linkPeriodS, record.supervisionState], [61, 'supervised']);
  } finally {
    await t.cleanup();
  }
});

test('the tracker health entry counts supervised and lost objects for the trouble LED', async () => {
  const t = await trackerFixture({ timeout_multiplier: 2, timeout_tolerance: 30 });
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    const entry = () => t.fx.health.get('tracker')!;
    t.timers.advance(1 * S);
    assert.equal([entry().kind, entry().state, entry().metrics], ['supervision', 'ok', { supervised: 1, lost: 0 }]);
    t.timers.advance(151 * S);
    assert.equal(entry().metrics, { supervised: 1, lost: 1 });
    await t.message(obj.id, true);
    t.timers.advance(1 * S);
    assert.equal(entry().metrics, { supervised: 1, lost: 0 }, 'restored at the next sweep');
    await t.tracker.stop();
    assert.is(t.fx.health.get('tracker'), undefined);
  } finally {
    await t.cleanup();
  }
});

test('an object without a learned period never goes lost, however long it is silent', async () => {
  const t = await trackerFixture();
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    await t.message(obj.id, true);
    t.timers.advance(60 * S);
    await t.message(obj.id, true);
    t.timers.advance(3 * 3600 * S);
    assert.equal(await events(t), []);
    assert.is(t.object(obj.id).connectionState, 'online');
  } finally {
    await t.cleanup();
  }
});

test('lost after period × multiplier + tolerance of silence: not at the deadline, one sweep tick after', async () => {
  const t = await trackerFixture({ timeout_multiplier: 2, timeout_tolerance: 30 });
  try {
    const obj = await t.addObject({ account: '0042' });
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    t.timers.advance(150 * S - 1);
    assert.is(t.tracker.supervisor.state(obj.id)?.lost, false);
    t.timers.advance(1); // exactly 60×2+30 s of silence: a sweep runs now and still finds it fine
    assert.is(t.tracker.supervisor.state(obj.id)?.lost, false, 'at the deadline');
    assert.equal(await events(t), []);
    t.timers.advance(1 * S); // the next sweep tick
    assert.is(t.tracker.supervisor.state(obj.id)?.lost, true, 'one tick after');
    const journal = await events(t);
    assert.equal(journal.map(brief), [`E350 00 000 #0042 obj=${obj.id} rx=1 Object lost`]);
    assert.equal(
      [journal[0]!.receivedAt, journal[0]!.eventClass, journal[0]!.flags],
      [T0 + 120 * S + 151 * S, 'internal', 0],
    );
    const record = t.object(obj.id);
    assert.equal([record.connectionState, record.supervisionState], ['lost', 'lost']);
    t.timers.advance(3600 * S);
    assert.is((await events(t)).length, 1, 'lost is reported once');
  } finally {
    await t.cleanup();
  }
});

test('a lost object is restored after event_count_for_restore messages, with its own event', async () => {
  const t = await trackerFixture({ event_count_for_restore: 3 });
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    t.timers.advance(241 * S);
    await t.message(obj.id);
    assert.is(t.object(obj.id).restoreCount, 1);
    t.timers.advance(10 * S);
    await t.message(obj.id, true);
    assert.equal([t.object(obj.id).restoreCount, t.object(obj.id).connectionState], [2, 'lost']);
    t.timers.advance(10 * S);
    await t.message(obj.id);
    const record = t.object(obj.id);
    assert.equal([record.restoreCount, record.connectionState, record.supervisionState], [0, 'online', 'supervised']);
    assert.equal((await events(t)).map(brief), [
      `E350 00 000 #1234 obj=${obj.id} rx=1 Object lost`,
      `R350 00 000 #1234 obj=${obj.id} rx=1 Object restored`,
    ]);
  } finally {
    await t.cleanup();
  }
});

test('restore messages must follow each other within the timeout, or the count starts over', async () => {
  const t = await trackerFixture({ event_count_for_restore: 2 });
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    t.timers.advance(241 * S);
    await t.message(obj.id);
    t.timers.advance(241 * S); // longer than the timeout: the first message no longer counts
    await t.message(obj.id);
    assert.is(t.tracker.supervisor.state(obj.id)?.lost, true);
    assert.is(t.object(obj.id).restoreCount, 1);
    t.timers.advance(240 * S);
    await t.message(obj.id);
    assert.is(t.tracker.supervisor.state(obj.id)?.lost, false);
  } finally {
    await t.cleanup();
  }
});

test('an SMS object uses sms_timeout_multiplier, sms_timeout_tolerance and event_count_for_restore_sms', async () => {
  const t = await trackerFixture({
    timeout_multiplier: 1,
    timeout_tolerance: 0,
    event_count_for_restore: 1,
    sms_timeout_multiplier: 2,
    sms_timeout_tolerance: 600,
    event_count_for_restore_sms: 2,
  });
  try {
    const sms = await t.addObject({ account: '5555', sms: true });
    const ip = await t.addObject({ account: '6666' });
    await t.tracker.start();
    for (let i = 0; i < 3; i++) {
      await t.message(sms.id, true);
      await t.message(ip.id, true);
      if (i < 2) t.timers.advance(60 * S);
    }
    t.timers.advance(61 * S);
    assert.is(t.tracker.supervisor.state(ip.id)?.lost, true, 'IP object: 60×1+0 s');
    t.timers.advance(720 * S - 61 * S);
    assert.is(t.tracker.supervisor.state(sms.id)?.lost, false, 'SMS object at 60×2+600 s');
    t.timers.advance(1 * S);
    assert.is(t.tracker.supervisor.state(sms.id)?.lost, true);
    await t.message(sms.id);
    assert.is(t.tracker.supervisor.state(sms.id)?.lost, true, 'one SMS message is not enough');
    await t.message(sms.id);
    assert.is(t.tracker.supervisor.state(sms.id)?.lost, false);
    assert.equal(
      (await events(t)).map((e) => `${e.qualifier}${e.code} #${e.account}`),
      ['E350 #6666', 'E350 #5555', 'R350 #5555'],
    );
  } finally {
    await t.cleanup();
  }
});

test('a type left out of internal_events is not journaled; the supervision state still changes', async () => {
  const t = await trackerFixture();
  try {
    t.internal_events = t.internal_events.filter((e) => e.type !== 'object_lost');
    const obj = await t.addObject();
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    t.timers.advance(241 * S);
    assert.equal(await events(t), []);
    assert.is(t.object(obj.id).connectionState, 'lost');
    await t.message(obj.id);
    assert.equal(
      (await events(t)).map((e) => e.text),
      ['Object restored'],
    );
  } finally {
    await t.cleanup();
  }
});

test('configured codes are journaled numerically normalised and announced on the ingest bus', async () => {
  const t = await trackerFixture();
  try {
    t.internal_events = [
      { type: 'object_lost', classificator: 'R', event_code: '00a', group_no: 'F', zone_no: '1', name: 'Gone' },
    ];
    const stored: number[] = [];
    t.bus.on('event-stored', ({ id, event }) => {
      if (event.protocol === 'INTERNAL') stored.push(id);
    });
    const obj = await t.addObject();
    await t.tracker.start();
    await learnSixtySeconds(t, obj.id);
    t.timers.advance(241 * S);
    const journal = await events(t);
    assert.equal(journal.map(brief), [`R00A 0F 001 #1234 obj=${obj.id} rx=1 Gone`]);
    assert.equal(stored, [journal[0]!.id]);
    assert.is(journal[0]!.raw.toString('latin1'), 'INTERNAL object_lost R00A 0F 001');
  } finally {
    await t.cleanup();
  }
});

test('a link-test event (CID 602) teaches the period of an object that sends no NULL', async () => {
  const t = await trackerFixture();
  try {
    const obj = await t.addObject();
    await t.tracker.start();
    const linkTest = async (): Promise<void> => {
      t.bus.emit('event-stored', {
        id: 1,
        event: {
          receivedAt: t.clock.now(),
          receiverId: 1,
          receiverKind: 'udp',
          objectId: obj.id,
          account: '1234',
          protocol: 'ADM-CID',
          encrypted: false,
          eventClass: 'link_test',
          code: '602',
          raw: Buffer.alloc(0),
        },
      });
      await t.message(obj.id);
    };
    await linkTest();
    t.timers.advance(3600 * S);
    await linkTest();
    t.timers.advance(3600 * S);
    await linkTest();
    assert.is(t.object(obj.id).linkPeriodS, 3600);
  } finally {
    await t.cleanup();
  }
});

test('related objects are not supervised on their own', async () => {
  const t = await trackerFixture();
  try {
    const main = await t.addObject();
    const related = await t.fx.store.write.objects.upsertRelated(main.id, '7777', { at: t.clock.now() });
    await t.fx.store.write.objects.updateSupervision(related.id, { linkPeriodS: 10, supervisionState: 'supervised' });
    await t.tracker.start();
    await t.message(related.id, true);
    t.timers.advance(3600 * S);
    assert.is(t.tracker.supervisor.state(related.id), undefined);
    assert.equal(await events(t), []);
  } finally {
    await t.cleanup();
  }
});

test.run();
