/**
 * Each MLR2 variant an operator can select, end to end over real TCP: journal -> output -> automation peer, byte for
 * byte (docs/outputs.md §MLR2 variants): the classic 1-digit line (MLR2, MLR2-DG), the 3-digit virtual line with and
 * without 10-digit Contact ID accounts, and the heartbeat of each.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/net.js';
import { Mlr2Peer } from './helpers/mlr2-peer.js';
import { FAST, cidEvent, siaEvent, eachTestWithPeer, type OutputFixture } from './helpers/output-fixture.js';

let fx: OutputFixture;
let peer: Mlr2Peer;
eachTestWithPeer(test, Mlr2Peer, (setup) => {
  ({ fx, peer } = setup);
});

const events = () => [
  cidEvent(),
  siaEvent({ code: 'BA', groupNo: '1', zoneNo: '3' }),
  cidEvent({ account: '12345678', code: '401', qualifier: 'R', groupNo: '02', zoneNo: '007' }),
  cidEvent({ zoneNo: '016' }),
];

async function run(settings: Record<string, unknown>, expectedLines: number): Promise<string[]> {
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}`, receiver_number: 1, ...settings });
  await out.start();
  const ids = await fx.append(events());
  await waitFor(() => fx.store.cursors.get(1) === ids[3], 3000);
  await waitFor(() => peer.lines.length >= expectedLines, 1000);
  await out.stop();
  return peer.lines.map((l) => l.text);
}

test('MLR2 (classic): 5RRL Contact ID, SIA Protocol 1; the 8-digit account is skipped', async () => {
  assert.equal(await run({ protocol: 'MLR2', line_number: 1 }, 3), [
    '5011 181234E13001015',
    '3011      1234BA0003',
    '5011 181234E13001016',
  ]);
  assert.is(fx.health.get('out:1'), undefined);
});

test('MLR2-DG: SIA Protocol 2 with the area; Contact ID as MLR2', async () => {
  assert.equal(await run({ protocol: 'MLR2-DG', line_number: 1 }, 3), [
    '5011 181234E13001015',
    'S011[#1234|Nri1BA3]',
    '5011 181234E13001016',
  ]);
});

test('MLR2-DG with a 3-digit line: 5RRLLL and SRRLLL; the long account is skipped and counted', async () => {
  const out = fx.output({
    protocol: 'MLR2-DG',
    identificator: `127.0.0.1:${peer.port}`,
    receiver_number: 1,
    line_number: 100,
    mlr2: { line_digits: 3, long_accounts: 'skip' },
  });
  await out.start();
  const ids = await fx.append(events());
  await waitFor(() => fx.store.cursors.get(1) === ids[3], 3000);
  assert.equal(
    peer.lines.map((l) => l.text),
    ['501100 181234E13001015', 'S01100[#1234|Nri1BA3]', '501100 181234E13001016'],
  );
  await waitFor(() => fx.health.get('out:1')?.metrics.unsendable === 1, 1000);
  assert.is(fx.health.get('out:1')?.metrics.protocol, 'MLR2-DG (3-digit line)');
  await out.stop();
});

test('MLR2-DG with a 3-digit line and 10-digit accounts: the long account goes out as QRRLLLs58', async () => {
  assert.equal(
    await run({ protocol: 'MLR2-DG', line_number: 100, mlr2: { line_digits: 3, long_accounts: 'contact_id_10' } }, 4),
    ['501100 181234E13001015', 'S01100[#1234|Nri1BA3]', 'Q01100 580012345678R40102007', '501100 181234E13001016'],
  );
});

test('heartbeats: the fixed 1011 line on the classic layout, 1RR000 on the 3-digit line', async () => {
  const classic = fx.output(
    { protocol: 'MLR2-DG', identificator: `127.0.0.1:${peer.port}`, receiver_number: 7, line_number: 3 },
    { timings: { ...FAST, supervisionIntervalMs: 50 } },
  );
  await classic.start();
  await waitFor(() => peer.lines.length >= 1, 2000);
  await classic.stop();
  assert.is(peer.lines[0]?.text, '1011           @    ');
  peer.lines.length = 0;
  const virtual = fx.output(
    {
      id: 2,
      protocol: 'MLR2-DG',
      identificator: `127.0.0.1:${peer.port}`,
      receiver_number: 7,
      line_number: 3,
      mlr2: { line_digits: 3, long_accounts: 'skip' },
    },
    { timings: { ...FAST, supervisionIntervalMs: 50 } },
  );
  await virtual.start();
  await waitFor(() => peer.lines.length >= 1, 2000);
  await virtual.stop();
  assert.is(peer.lines[0]?.text, '107000           @    ');
});

test.run();
