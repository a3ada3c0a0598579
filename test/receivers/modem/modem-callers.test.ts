/**
 * Who a test call counts for (docs/modem.md §Test calls), over the real parts (simulated modem on a socat pty, port
 * layer, ingest, SQLite store): a number becomes known for an object only when the installer configured it or an
 * encrypted SMS opened with the receiver's key came from it. A plain SMS teaches nothing, and on a receiver with a key
 * it is refused: never that account's event, never a refresh of its supervision (issue #28.11).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiverPasswordKey } from '../../../src/protocols/dc09/crypto.js';
import { buildMessage } from '../../../src/protocols/dc09/encoder.js';
import { contactIdChecksum } from '../../../src/protocols/sms/contact-id.js';
import { waitFor } from '../../helpers/net.js';
import { startModemRig, type ModemRig } from './modem-rig.js';

const PASSWORD = 'VigilTestKey0001';
const KEY = receiverPasswordKey(PASSWORD);
const PANEL = '+37060000001';
const ATTACKER = '+37069999999';
const cid = (account: string): string => {
  const first15 = `${account}18160200000`;
  return first15 + contactIdChecksum(first15);
};
const encrypted = (token: 'NULL' | 'SIA-DCS', sequence: number, timestamp: number): string =>
  buildMessage({
    token,
    sequence,
    account: '1234',
    data: token === 'NULL' ? '' : '#1234|Nri1/RP00',
    timestamp,
    key: KEY,
  })
    .toString('latin1')
    .trim();

/** Every 'object-seen' the ingest announces (what the tracker's supervision hears), by object id. */
function sightings(rig: ModemRig): Map<number, number> {
  const seen = new Map<number, number>();
  rig.runtime.bus.on('object-seen', (s) => void seen.set(s.objectId, (seen.get(s.objectId) ?? 0) + 1));
  return seen;
}

/** Rings from `number` and waits until the modem rejected the call and the receiver counted it. */
async function ring(rig: ModemRig, number: string): Promise<void> {
  const calls = Number(rig.component()!.metrics.calls);
  rig.sim.ring(number);
  await waitFor(() => rig.component()!.metrics.calls === calls + 1);
}

test('receiver with a key: a plain SMS for an account is refused, its sender is not learned, its calls refresh nothing', async () => {
  const rig = await startModemRig({ settings: { encryption_password: PASSWORD } });
  const seen = sightings(rig);
  try {
    await rig.waitState('ok');
    const stamp = Date.now() - 60_000;
    rig.sim.deliver({ sender: PANEL, text: encrypted('SIA-DCS', 1, stamp) });
    await waitFor(() => rig.events().length === 1);
    const objectId = rig.events()[0]!.objectId!;
    await waitFor(() => rig.receiver.callers.accountsFor(PANEL).length === 1);
    const seenBefore = seen.get(objectId);
    const pingBefore = rig.store.objects.get(objectId)!.lastPing;

    rig.sim.deliver({ sender: ATTACKER, text: cid('1234') });
    rig.sim.deliver({
      sender: ATTACKER,
      text: buildMessage({ token: 'NULL', sequence: 2, account: '1234', data: '' }).toString('latin1'),
    });
    await waitFor(() => rig.component()!.metrics.sms_journaled === 3);
    assert.equal(
      rig
        .events()
        .slice(1)
        .map((e) => [e.protocol, e.account, e.objectId, e.remoteAddress, e.eventClass]),
      [
        ['SMS-CORRUPT', '', null, ATTACKER, 'other'],
        ['SMS-CORRUPT', '', null, ATTACKER, 'other'],
      ],
    );
    // The modem may hand the two SMS over in either order (each is read by its own index): match either.
    assert.is(
      rig
        .events()
        .slice(1)
        .filter((e) => e.text!.startsWith('plain Contact ID refused: the receiver has a key: ')).length,
      1,
    );
    await waitFor(() => rig.component()!.metrics.sms_refused_plain === 2);
    assert.equal(rig.receiver.callers.accountsFor(ATTACKER), []);

    await ring(rig, ATTACKER);
    assert.is(rig.component()!.metrics.call_link_tests, 0);
    assert.is(seen.get(objectId), seenBefore, 'neither the plain SMS nor the call refreshed the object');
    assert.is(rig.store.objects.get(objectId)!.lastPing, pingBefore);
    assert.is(rig.store.objects.get(objectId)!.remoteAddress, PANEL);

    // The panel's own number still works.
    await ring(rig, PANEL);
    await waitFor(() => rig.component()!.metrics.call_link_tests === 1);
  } finally {
    await rig.close();
  }
});

test('an encrypted frame sent again from another number does not teach it; a newer one does, and it survives a restart', async () => {
  const rig = await startModemRig({ settings: { encryption_password: PASSWORD } });
  try {
    await rig.waitState('ok');
    const stamp = Date.now() - 120_000;
    const frame = encrypted('NULL', 1, stamp);
    rig.sim.deliver({ sender: PANEL, text: frame });
    await waitFor(() => rig.receiver.callers.accountsFor(PANEL).length === 1);
    // A copy of the panel's frame, from the attacker's number: authentic content, but not newer.
    rig.sim.deliver({ sender: ATTACKER, text: frame });
    await waitFor(() => rig.component()!.metrics.sms_journaled === 2);
    assert.equal(rig.receiver.callers.accountsFor(ATTACKER), []);
    assert.equal(rig.receiver.callers.accountsFor(PANEL), ['1234']);
    // The panel moved to another SIM: its next frame is newer.
    const NEW_SIM = '+37060000002';
    rig.sim.deliver({ sender: NEW_SIM, text: encrypted('NULL', 2, stamp + 60_000) });
    await waitFor(() => rig.receiver.callers.accountsFor(NEW_SIM).length === 1);
    assert.equal(rig.receiver.callers.accountsFor(PANEL), []);
    await rig.restartReceiver();
    await rig.waitState('ok');
    assert.equal(rig.receiver.callers.accountsFor(NEW_SIM), ['1234']);
    assert.equal(rig.receiver.callers.accountsFor(ATTACKER), []);
  } finally {
    await rig.close();
  }
});

test('receiver without a key: a plain SMS is journaled but teaches nothing; a configured number is a link test', async () => {
  const rig = await startModemRig({ settings: { known_callers: [{ account: '5678', number: '+370 600-00042' }] } });
  const seen = sightings(rig);
  try {
    await rig.waitState('ok');
    rig.sim.deliver({ sender: ATTACKER, text: cid('1234') });
    await waitFor(() => rig.events().length === 1);
    const objectId = rig.events()[0]!.objectId!;
    assert.equal([rig.events()[0]!.protocol, rig.events()[0]!.account], ['CONTACT-ID', '1234']);
    await waitFor(() => seen.get(objectId) === 1);
    assert.equal(rig.receiver.callers.accountsFor(ATTACKER), []);
    await ring(rig, ATTACKER);
    assert.is(rig.component()!.metrics.call_link_tests, 0);
    assert.is(seen.get(objectId), 1, 'the call refreshed nothing');
    assert.is(rig.store.objects.get(objectId)!.lastPing, null);

    await ring(rig, '37060000042');
    await waitFor(() => rig.component()!.metrics.call_link_tests === 1);
    const configured = rig.store.objects.findByAccount('5678', 7)[0];
    assert.ok(configured?.lastPing, 'the configured number is a link test of object 5678');
    assert.is(rig.component()!.metrics.known_numbers, 1);
  } finally {
    await rig.close();
  }
});

test.run();
