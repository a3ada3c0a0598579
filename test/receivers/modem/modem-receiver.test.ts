/** The modem receiver end to end over a real pty: start-up, SMS into the journal, deletion after commit. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../../helpers/net.js';
import { startModemRig } from './modem-rig.js';

const SENDER = '+37060000001';
const SENT = Date.UTC(2026, 10, 23, 20, 0, 0);

test('start-up sequence in order; make, model, IMEI, signal and registration in status', async () => {
  const rig = await startModemRig();
  try {
    await rig.waitState('ok');
    await waitFor(() => rig.sim.received.includes('AT+CMGL=4'));
    assert.equal(rig.sim.received.slice(0, 15), [
      'AT',
      'ATE0',
      'AT+CMEE=1',
      'AT+CPIN?',
      'AT+CMGF=0',
      'AT+CNMI=2,1,0,0,0',
      'AT+CLIP=1',
      'AT+CREG=1',
      'AT+CPMS="SM","SM","SM"',
      'AT+CGMI',
      'AT+CGMM',
      'AT+CGSN',
      'AT+CSQ',
      'AT+CREG?',
      'AT+CMGL=4',
    ]);
    const m = rig.component()!.metrics;
    assert.equal(
      [m.manufacturer, m.model, m.imei, m.csq, m.rssi_dbm, m.registered],
      ['VIGIL-SIM', 'SIM-MODEM-1', '356938035643809', 20, -73, true],
    );
    assert.is(rig.component()!.kind, 'receiver');
  } finally {
    await rig.close();
  }
});

test('+CMTI -> read -> journal -> delete: Contact ID, unparsed text, corrupt checksum; storage from index 0', async () => {
  const rig = await startModemRig({ sim: { indexBase: 0 } });
  try {
    await rig.waitState('ok');
    rig.sim.deliver({ sender: SENDER, text: '1234 18 1 131 01 015 8', sentAt: SENT });
    rig.sim.deliver({ sender: SENDER, text: 'Sveiki! Power failure at the warehouse €', sentAt: SENT });
    rig.sim.deliver({ sender: '+37060000002', text: '1234181131010159', sentAt: SENT });
    await waitFor(() => rig.events().length === 3 && rig.sim.stored === 0).catch((e) => {
      console.log(
        rig.events().map((x) => [x.protocol, x.text]),
        rig.sim.stored,
        rig.sim.received,
        rig.logs.slice(-20),
      );
      throw e;
    });
    const [cid, text, bad] = rig.events();
    assert.equal(
      [
        cid!.protocol,
        cid!.transport,
        cid!.remoteAddress,
        cid!.account,
        cid!.eventClass,
        cid!.code,
        cid!.qualifier,
        cid!.zoneNo,
        cid!.deviceTime,
        cid!.receiverKind,
      ],
      ['CONTACT-ID', 'sms', SENDER, '1234', 'alarm', '131', 'E', '015', SENT, 'modem'],
    );
    assert.ok(cid!.objectId !== null);
    assert.equal(
      [text!.protocol, text!.text, text!.objectId, text!.eventClass],
      ['SMS-TEXT', 'Sveiki! Power failure at the warehouse €', null, 'other'],
    );
    assert.equal(
      [bad!.protocol, bad!.eventClass, bad!.objectId, bad!.remoteAddress],
      ['SMS-CORRUPT', 'other', null, '+37060000002'],
    );
    assert.ok(rig.sim.received.includes('AT+CMGR=0'));
    assert.is(rig.sim.stats.deleted, 3);
    // SMS objects are supervised with the sms_* settings.
    assert.is(rig.store.objects.get(cid!.objectId!)!.sms, true);
    await waitFor(() => rig.component()!.metrics.sms_deleted === 3);
  } finally {
    await rig.close();
  }
});

test('messages already stored at start are read with AT+CMGL', async () => {
  const rig = await startModemRig();
  try {
    await rig.waitState('ok');
    await rig.receiver.stop();
    rig.sim.deliver({ sender: SENDER, text: 'stored before start', sentAt: SENT });
    await rig.restartReceiver();
    await waitFor(() => rig.events().length === 1 && rig.sim.stored === 0);
    assert.is(rig.events()[0]!.text, 'stored before start');
  } finally {
    await rig.close();
  }
});

test('a concatenated SMS out of order: every part stays on the SIM until the whole message committed', async () => {
  const rig = await startModemRig();
  try {
    await rig.waitState('ok');
    const text = `Long report: ${'zone 15 alarm; '.repeat(20)}end`;
    const all = rig.sim.deliver({ sender: SENDER, text, sentAt: SENT }, [2, 0]);
    assert.is(all.length, 2);
    await waitFor(() => rig.sim.received.filter((c) => c.startsWith('AT+CMGR=')).length === 2);
    await new Promise((r) => setTimeout(r, 150));
    assert.is(rig.events().length, 0);
    assert.is(rig.sim.stored, 2);
    assert.is(rig.component()!.metrics.concat_parts_waiting, 1);
    // The middle part arrives last (same reference: delivered by hand with the simulator's next part).
    rig.sim.deliver({ sender: SENDER, text, sentAt: SENT, ref: 1 }, [1]);
    await waitFor(() => rig.events().length === 1 && rig.sim.stored === 0);
    assert.is(rig.events()[0]!.text, text);
    assert.is(rig.sim.stats.deleted, 3);
  } finally {
    await rig.close();
  }
});

test('an index freed by AT+CMGD and reused at once: the new +CMTI right behind the OK is read', async () => {
  const rig = await startModemRig();
  try {
    await rig.waitState('ok');
    rig.sim.afterAnswer = (command) => {
      if (command !== 'AT+CMGD=1') return;
      rig.sim.afterAnswer = null;
      rig.sim.deliver({ sender: SENDER, text: 'second into index 1', sentAt: SENT });
    };
    rig.sim.deliver({ sender: SENDER, text: 'first into index 1', sentAt: SENT });
    await waitFor(() => rig.events().length === 2 && rig.sim.stored === 0, 3000);
    assert.equal(
      rig.events().map((e) => e.text),
      ['first into index 1', 'second into index 1'],
    );
    assert.equal(rig.sim.received.filter((c) => c.startsWith('AT+CMG')).slice(-4), [
      'AT+CMGR=1',
      'AT+CMGD=1',
      'AT+CMGR=1',
      'AT+CMGD=1',
    ]);
  } finally {
    await rig.close();
  }
});

test('1,000 SMS in a burst: every one journaled once, every one deleted', async () => {
  const rig = await startModemRig({ sim: { capacity: 1100 } });
  try {
    await rig.waitState('ok');
    const t0 = Date.now();
    for (let i = 0; i < 1000; i++) rig.sim.deliver({ sender: SENDER, text: `burst ${i}`, sentAt: SENT });
    await waitFor(() => rig.events().length >= 1000 && rig.sim.stored === 0, 60_000, 50);
    const texts = new Set(rig.events().map((e) => e.text));
    assert.is(rig.events().length, 1000);
    assert.is(texts.size, 1000);
    assert.is(rig.sim.stats.deleted, 1000);
    console.log(`1,000 SMS over the pty in ${Date.now() - t0} ms`);
  } finally {
    await rig.close();
  }
});

test.run();
