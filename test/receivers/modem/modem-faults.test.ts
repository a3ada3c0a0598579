/** The modem receiver when things go wrong: a locked SIM, a silent modem, a pulled cable, weak signal, test calls. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../../helpers/net.js';
import { startModemRig } from './modem-rig.js';

test('a PIN-locked SIM: the right PIN is entered once; the SIM asking again after a replug is not answered', async () => {
  const rig = await startModemRig({ sim: { pin: '4321' }, settings: { sim_pin: '4321' } });
  try {
    await rig.waitState('ok');
    assert.is(rig.sim.stats.pinAttempts, 1);
    assert.ok(rig.sim.received.includes('AT+CPIN="4321"'));
    await rig.unplugModem();
    await rig.waitState('degraded', /port lost/);
    await rig.plugModem({ pin: '4321' });
    await rig.waitState('failed', /entered once per gateway start/);
    assert.is(rig.sim.stats.pinAttempts, 0); // the new modem side never saw a PIN
  } finally {
    await rig.close();
  }
});

test('a wrong PIN: failed at once, never retried by a reopen or a restart of the receiver', async () => {
  const rig = await startModemRig({ sim: { pin: '4321' }, settings: { sim_pin: '1111' } });
  try {
    await rig.waitState('failed', /SIM PIN refused \(\+CME ERROR: 16\)/);
    assert.is(rig.sim.stats.pinAttempts, 1);
    await rig.restartReceiver();
    await rig.waitState('failed', /SIM PIN refused; not entered again/);
    assert.is(rig.sim.stats.pinAttempts, 1);
    assert.ok(rig.sim.simLocked);
  } finally {
    await rig.close();
  }
});

test('a PIN-locked SIM without sim_pin is failed with a clear reason', async () => {
  const rig = await startModemRig({ sim: { pin: '4321' } });
  try {
    await rig.waitState('failed', /SIM PIN required but no sim_pin is set/);
    assert.is(rig.sim.stats.pinAttempts, 0);
  } finally {
    await rig.close();
  }
});

test('a modem that stops answering: ATZ, then the port reopened; back to ok when it answers again', async () => {
  const rig = await startModemRig({ settings: { poll_interval_s: 1 }, commandTimeoutMs: 300 });
  try {
    await rig.waitState('ok');
    rig.sim.silent = true;
    await waitFor(() => rig.history.some((h) => /port reopened/.test(h)), 6000);
    const steps = rig.history.slice(rig.history.indexOf('ok: '));
    assert.equal(steps.slice(0, 3), [
      'ok: ',
      'degraded: modem not answering (no answer to AT+CSQ within 300 ms): ATZ sent',
      'degraded: modem not answering after ATZ: port reopened',
    ]);
    rig.sim.silent = false;
    await rig.waitState('ok', undefined, 8000);
    const m = rig.component()!.metrics;
    assert.ok((m.resets as number) >= 1);
    assert.ok((m.reopens_requested as number) >= 1);
    // The start-up ran again after the recovery.
    assert.ok(rig.sim.received.filter((c) => c === 'AT+CNMI=2,1,0,0,0').length >= 2);
  } finally {
    await rig.close();
  }
});

test('a slow modem (250 ms per answer) and garbage on the line: start-up and SMS still go through', async () => {
  const rig = await startModemRig({ sim: { answerDelayMs: 250 } });
  try {
    await rig.waitState('ok', undefined, 10_000);
    rig.sim.urc(`junk\u0000\u00ff${'x'.repeat(1500)}`);
    rig.sim.urc('^RSSI:25');
    rig.sim.deliver({ sender: '+37060000008', text: 'slow but sure' });
    await waitFor(() => rig.events().length === 1 && rig.sim.stored === 0, 10_000);
    assert.is(rig.events()[0]!.text, 'slow but sure');
    await waitFor(() => rig.component()!.metrics.overlong_lines === 1);
    assert.is(rig.component()!.metrics.at_timeouts, 0);
  } finally {
    await rig.close();
  }
});

test('unplug and replug: port lost, then the start-up again and SMS flow', async () => {
  const rig = await startModemRig();
  try {
    await rig.waitState('ok');
    await rig.unplugModem();
    await rig.waitState('degraded', /port lost/);
    await rig.plugModem();
    await rig.waitState('ok', undefined, 5000);
    rig.sim.deliver({ sender: '+37060000009', text: 'after replug' });
    await waitFor(() => rig.events().length === 1 && rig.sim.stored === 0);
    assert.is(rig.events()[0]!.text, 'after replug');
  } finally {
    await rig.close();
  }
});

test('weak signal and lost registration are trouble: degraded and receiver_trouble; recovery restores', async () => {
  const rig = await startModemRig({ settings: { poll_interval_s: 1, min_csq: 10 } });
  try {
    await rig.waitState('ok');
    rig.sim.csq = 5;
    await rig.waitState('degraded', /signal low \(csq 5\)/, 4000);
    assert.equal(rig.raised, [{ type: 'receiver_trouble', detail: 'rx:modem:7: signal low (csq 5)' }]);
    assert.is(rig.component()!.metrics.rssi_dbm, -103);
    rig.sim.csq = 18;
    rig.sim.urc('+CREG: 0');
    await rig.waitState('degraded', /not registered/, 4000);
    rig.sim.urc('+CREG: 1');
    await rig.waitState('ok', undefined, 4000);
    assert.equal(
      rig.raised.map((r) => r.type),
      ['receiver_trouble', 'receiver_restored'],
    );
  } finally {
    await rig.close();
  }
});

test('calls are rejected with ATH; a call from a number learned from an encrypted SMS is a link test of its object', async () => {
  const password = 'VigilTestKey0001';
  const rig = await startModemRig({ settings: { encryption_password: password } });
  try {
    await rig.waitState('ok');
    // A corrupt message teaches nothing: it has no object.
    rig.sim.deliver({ sender: '+37060000005', text: '5678181602000009' });
    await waitFor(() => rig.events().length === 1);
    assert.is(rig.events()[0]!.protocol, 'SMS-CORRUPT');
    const { buildMessage } = await import('../../../src/protocols/dc09/encoder.js');
    const { receiverPasswordKey } = await import('../../../src/protocols/dc09/crypto.js');
    const frame = buildMessage({
      token: 'SIA-DCS',
      sequence: 1,
      account: '5678',
      data: '#5678|Nri1/RP00',
      timestamp: Date.now(),
      key: receiverPasswordKey(password),
    });
    rig.sim.deliver({ sender: '+37060000005', text: frame.toString('latin1').trim() });
    await waitFor(() => rig.events().length === 2);
    const objectId = rig.events()[1]!.objectId!;
    assert.is(rig.events()[1]!.eventClass, 'link_test');
    await waitFor(() => rig.component()!.metrics.known_numbers === 1);
    const before = rig.store.objects.get(objectId)!.lastPing;
    rig.sim.ring('+37060000005');
    rig.sim.ring('+37060000005'); // the same call rings again: one link test
    rig.sim.ring('+37069999999'); // unknown: rejected, nothing else
    await waitFor(() => rig.sim.stats.hangups >= 3 && rig.component()!.metrics.call_link_tests === 1);
    await waitFor(() => (rig.store.objects.get(objectId)!.lastPing ?? 0) > (before ?? 0));
    assert.is(rig.component()!.metrics.calls, 2);
    // A restarted receiver still knows the number (read back from the store).
    await rig.restartReceiver();
    await rig.waitState('ok');
    assert.is(rig.receiver.callers.accountsFor('37060000005').length, 1);
  } finally {
    await rig.close();
  }
});

test.run();
