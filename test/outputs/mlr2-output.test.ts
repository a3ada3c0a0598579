/**
 * Journal -> MLR2 output -> automation peer over real TCP on 127.0.0.1, byte for byte: Contact ID and SIA lines,
 * MLR2 and MLR2-DG layouts, override OIDs, gateway events under the output oid, filters, heartbeats, cursor and
 * health figures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/net.js';
import { HEARTBEAT_LINE, Mlr2Peer } from './helpers/mlr2-peer.js';
import { FAST, cidEvent, siaEvent, eachTestWithPeer, type OutputFixture } from './helpers/output-fixture.js';

let fx: OutputFixture;
let peer: Mlr2Peer;
eachTestWithPeer(test, Mlr2Peer, (setup) => {
  ({ fx, peer } = setup);
});

test('Contact ID and SIA events reach the peer in journal order, byte for byte, and the cursor follows the ACKs', async () => {
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}`, receiver_number: 3, line_number: 2 });
  await out.start();
  const ids = await fx.append([
    cidEvent(),
    siaEvent({ code: 'BA', zoneNo: '3' }),
    cidEvent({ qualifier: 'R', code: '130', zoneNo: '015' }),
    cidEvent({ qualifier: 'P', code: '3A1', groupNo: '00', zoneNo: 'B2', account: 'c12' }),
  ]);
  await peer.waitForEvents(4);
  assert.equal(peer.events(), [
    '5032 181234E13001015',
    '3032      1234BA0003',
    '5032 181234R13001015',
    '5032 180C12P3A1000B2',
  ]);
  await waitFor(() => fx.store.cursors.get(1) === ids[3], 2000);
  const health = fx.health.get('out:1');
  assert.is(health?.state, 'ok');
  assert.is(health?.kind, 'output');
  await waitFor(() => fx.health.get('out:1')?.metrics.delivered === 4, 2000);
  const metrics = fx.health.get('out:1')!.metrics;
  assert.is(metrics.connected, true);
  assert.is(metrics.backlog, 0);
  assert.is(metrics.retries, 0);
  assert.is(metrics.last_ack_at, fx.clock.now());
  await out.stop();
  assert.is(fx.health.get('out:1'), undefined, 'a stopped output leaves the registry');
});

test('MLR2-DG sends SIA events as SIA Protocol 2 blocks with the area; Contact ID is unchanged', async () => {
  const out = fx.output({ protocol: 'MLR2-DG', identificator: `127.0.0.1:${peer.port}` });
  await out.start();
  await fx.append([
    siaEvent({ groupNo: '1', code: 'BA', zoneNo: '01' }),
    cidEvent(),
    siaEvent({ account: '0123456789', groupNo: null, code: 'FA', zoneNo: '12' }),
  ]);
  await peer.waitForEvents(3);
  assert.equal(peer.events(), ['S011[#1234|Nri1BA01]', '5011 181234E13001015', 'S011[#0123456789|NFA12]']);
  await out.stop();
});

test('an override OID replaces the account on the wire; gateway events go out under the output oid', async () => {
  const main = await fx.store.write.objects.upsertMain({
    account: '1234',
    uid: 'AB12',
    receiverId: 1,
    receiverKind: 'tcp',
    at: fx.clock.now(),
  });
  const related = await fx.store.write.objects.upsertRelated(main.id, '5678', { at: fx.clock.now() });
  const plain = await fx.store.write.objects.upsertMain({
    account: '4321',
    receiverId: 1,
    receiverKind: 'tcp',
    at: fx.clock.now(),
  });
  await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'AB12', relatedOid: null, overrideOid: '9999' });
  await fx.store.write.overrides.set({ matchKind: 'uid', matchValue: 'AB12', relatedOid: '5678', overrideOid: 'A5' });
  await fx.store.write.overrides.set({ matchKind: 'oid', matchValue: '4321', relatedOid: null, overrideOid: '4000' });
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}`, oid: 0xbeef });
  await out.start();
  await fx.append([
    cidEvent({ objectId: main.id }),
    cidEvent({ objectId: related.id, account: '5678' }),
    siaEvent({ objectId: plain.id, account: '4321' }),
    cidEvent({ account: '7777' }),
    cidEvent({
      receiverId: null,
      receiverKind: null,
      objectId: null,
      account: '0000',
      protocol: 'INTERNAL',
      eventClass: 'internal',
      code: '354',
      groupNo: '00',
      zoneNo: '000',
    }),
  ]);
  await peer.waitForEvents(5);
  assert.equal(peer.events(), [
    '5011 189999E13001015',
    '5011 1800A5E13001015',
    '3011      4000BA0003',
    '5011 187777E13001015',
    '5011 18BEEFE35400000',
  ]);
  await out.stop();
});

test('filters: other receivers, other classes and ignorable startup events never reach the peer; the cursor passes them', async () => {
  const out = fx.output({
    identificator: `127.0.0.1:${peer.port}`,
    filters: { receivers: [2], event_classes: ['alarm', 'internal'] },
  });
  await out.start();
  const ids = await fx.append([
    cidEvent({ receiverId: 1, zoneNo: '001' }),
    cidEvent({ receiverId: 2, zoneNo: '002' }),
    cidEvent({ receiverId: 2, zoneNo: '003', eventClass: 'restore', qualifier: 'R' }),
    cidEvent({ receiverId: 2, zoneNo: '004', flags: 1 }),
    cidEvent({
      receiverId: null,
      receiverKind: null,
      account: '0',
      protocol: 'INTERNAL',
      eventClass: 'internal',
      code: '305',
      groupNo: '00',
      zoneNo: '000',
    }),
    cidEvent({ receiverId: 2, zoneNo: '005' }),
  ]);
  await peer.waitForEvents(3);
  await waitFor(() => fx.store.cursors.get(1) === ids[5], 2000);
  assert.equal(peer.events(), ['5011 181234E13001002', '5011 18001FE30500000', '5011 181234E13001005']);
  await out.stop();
});

test('the heartbeat goes out at its period, byte for byte, and is ACKed like an event', async () => {
  const out = fx.output(
    { identificator: `127.0.0.1:${peer.port}` },
    { timings: { ...FAST, supervisionIntervalMs: 60 } },
  );
  await out.start();
  await waitFor(() => peer.heartbeats() >= 3, 3000, 5);
  assert.ok(peer.lines.every((l) => l.text === HEARTBEAT_LINE));
  assert.is(fx.health.get('out:1')?.state, 'ok');
  await out.stop();
});

test('an event the layout cannot carry is skipped with an error log; the next one is delivered', async () => {
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}` });
  await out.start();
  const ids = await fx.append([
    cidEvent({ account: '123456' }),
    siaEvent({ code: 'BA', zoneNo: '123456' }),
    cidEvent({ zoneNo: '009' }),
  ]);
  await peer.waitForEvents(1);
  await waitFor(() => fx.store.cursors.get(1) === ids[2], 2000);
  assert.equal(peer.events(), ['5011 181234E13001009']);
  await waitFor(() => fx.health.get('out:1')?.metrics.unsendable === 2, 2000);
  assert.ok(
    fx.logs.some(
      (l) =>
        l.includes('event cannot be sent by this output') &&
        l.includes('account \\"123456\\" has more than 4 significant digits'),
    ),
  );
  await out.stop();
});

test('a new output starts at the journal head; events journaled before it existed are not sent', async () => {
  await fx.append([cidEvent({ zoneNo: '001' }), cidEvent({ zoneNo: '002' })]);
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}` });
  await out.start();
  await fx.append([cidEvent({ zoneNo: '003' })]);
  await peer.waitForEvents(1);
  await out.stop();
  assert.equal(peer.events(), ['5011 181234E13001003']);
});

test('without the new-event signal the output still finds new events by its slow poll', async () => {
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}` }, { onEventStored: undefined });
  await out.start();
  await fx.store.write.events.append([
    { ...(await import('../store/helpers/store-fixture.js')).sampleEvent(cidEvent()) },
  ]);
  await peer.waitForEvents(1, 2000);
  assert.equal(peer.events(), ['5011 181234E13001015']);
  await out.stop();
});

test.run();
