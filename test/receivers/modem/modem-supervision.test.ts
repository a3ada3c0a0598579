/**
 * Supervision by SMS (docs/modem.md §Supervision by SMS): an object heard through the modem is an
 * SMS object; its test calls are link tests the real Tracker learns a period from, and it is lost and
 * restored with the sms_* settings. The modem side runs over a real pty; the tracker's clock is manual.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../src/core/clock.js';
import { silentLogger } from '../../../src/core/logger.js';
import { SEEN_MAX_LAG_MS } from '../../../src/writer/seen-log.js';
import { contactIdChecksum } from '../../../src/protocols/sms/contact-id.js';
import { defaultSettings } from '../../../src/settings/schema.js';
import { Tracker } from '../../../src/tracker/tracker.js';
import { waitFor } from '../../helpers/net.js';
import { ClockTimers } from '../../tracker/helpers/clock-timers.js';
import { startModemRig } from './modem-rig.js';

const S = 1000;
const NUMBER = '+37060000042';

test('test calls teach the period; lost after period × sms_timeout_multiplier + sms_timeout_tolerance; a call restores', async () => {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 12, 0, 0));
  const timers = new ClockTimers(clock);
  const rig = await startModemRig({
    now: () => clock.now(),
    settings: { known_callers: [{ account: '7777', number: NUMBER }] },
  });
  const raised: string[] = [];
  // sms_* differ from the IP values, so the test tells which ones applied.
  const settings = {
    ...defaultSettings().tracker,
    timeout_multiplier: 1,
    timeout_tolerance: 0,
    sms_timeout_multiplier: 2,
    sms_timeout_tolerance: 600,
  };
  const tracker = new Tracker({
    objects: rig.store.objects,
    meta: rig.store.meta,
    write: rig.store.write,
    settings: () => settings,
    bus: rig.runtime.bus,
    // This rig's ingest commits in the test's thread: sightings are stored throttled, as in the gateway.
    storedSightingsLagMs: SEEN_MAX_LAG_MS,
    raise: async (type) => {
      raised.push(type);
      return null;
    },
    clock,
    timers,
    logger: silentLogger,
  });
  try {
    await rig.waitState('ok');
    await tracker.start();
    const first15 = '777718160200000';
    rig.sim.deliver({ sender: NUMBER, text: first15 + contactIdChecksum(first15) });
    await waitFor(() => rig.events().length === 1);
    const objectId = rig.events()[0]!.objectId!;
    assert.is(rig.store.objects.get(objectId)!.sms, true);
    await waitFor(() => rig.receiver.callers.accountsFor(NUMBER).length === 1);

    const call = async (n: number): Promise<void> => {
      rig.sim.ring(NUMBER);
      await waitFor(() => rig.component()!.metrics.call_link_tests === n);
    };
    for (let n = 1; n <= 3; n++) {
      await call(n);
      timers.advance(60 * S);
    }
    assert.is(tracker.supervisor.state(objectId)?.periodS, 60);
    // Heard at the third call, 60 s ago: lost after 60 × 2 + 600 = 720 s of silence, not before.
    timers.advance((720 - 60) * S);
    assert.is(tracker.supervisor.state(objectId)?.lost, false, 'the IP values (60 s) would have made it lost');
    timers.advance(1 * S + 1000);
    assert.is(tracker.supervisor.state(objectId)?.lost, true);
    assert.equal(raised, ['object_lost']);
    await call(4);
    await waitFor(() => raised.length === 2);
    assert.equal(raised, ['object_lost', 'object_restored']);
    // The restore's state reaches the store through the writer thread, after the event is raised.
    await waitFor(() => rig.store.objects.get(objectId)!.connectionState === 'online');
  } finally {
    await tracker.stop();
    await rig.close();
  }
});

test.run();
