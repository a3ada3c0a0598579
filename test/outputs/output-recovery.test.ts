/**
 * Recovery after an outage longer than the retry budget (issue #7 defect 6; docs/outputs.md
 * §Failed state): the output probes 1 s doubling to 8 s (connect attempts every second while the
 * link is down), never resends the alarm as a probe, and delivers within 2 s of the automation
 * accepting connections again. The failed-state timings here are the production ones; only the
 * ACK timeout and the retries are shortened so the output fails quickly.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sleep, waitFor } from '../helpers/net.js';
import { HEARTBEAT_LINE as HEARTBEAT, Mlr2Peer } from './helpers/mlr2-peer.js';
import { cidEvent, eachTestWithPeer, type OutputFixture } from './helpers/output-fixture.js';

const line = (zone: string): string => `5011 181234E130${zone}`;

let fx: OutputFixture;
let peer: Mlr2Peer;
eachTestWithPeer(test, Mlr2Peer, (setup) => {
  ({ fx, peer } = setup);
});

/** The production timings (output-timings.ts) but a quick failure: only the ACK timeout and the retries differ. */
const TIMINGS = { ackTimeoutMs: 200, retries: 1 };

test('automation down longer than the retry budget: the alarm arrives within 2 s of its return', async () => {
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}` }, { timings: TIMINGS });
  await out.start();
  await fx.append([cidEvent({ zoneNo: '001' })]);
  await peer.waitForEvents(1);
  const port = peer.port;
  await peer.close();
  await fx.append([cidEvent({ zoneNo: '002' })]);
  await waitFor(() => fx.health.get('out:1')?.state === 'failed', 3000);
  await sleep(6000); // long enough for the heartbeat backoff to have grown, were it applied to connects
  await peer.listen(port);
  const back = Date.now();
  await peer.waitForEvents(2, 4000);
  const took = Date.now() - back;
  assert.ok(took <= 2000, `the alarm arrived ${took} ms after the automation came back`);
  assert.equal(peer.distinctEvents(), [line('01001'), line('01002')]);
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 1000);
});

test('while failed on a live link that does not answer: heartbeats 1 s doubling to 8 s, never the alarm', async () => {
  let answering = false;
  peer.policy = () => (answering ? 'ack' : 'silent');
  const out = fx.output({ identificator: `127.0.0.1:${peer.port}` }, { timings: TIMINGS });
  await out.start();
  await fx.append([cidEvent({ zoneNo: '001' })]);
  await waitFor(() => fx.health.get('out:1')?.state === 'failed', 3000);
  const failedAt = peer.lines.length;
  await sleep(9500);
  const probes = peer.lines.slice(failedAt);
  assert.ok(
    probes.every((l) => l.text === HEARTBEAT),
    'only heartbeats while failed',
  );
  // 1 s + 0.2 s silence, 2 s + 0.2, 4 s + 0.2 -> three heartbeats in 9.5 s (doubling), not nine (every second).
  assert.is(probes.length, 3, `heartbeats while failed: ${probes.length}`);
  answering = true;
  await waitFor(() => fx.health.get('out:1')?.state === 'ok', 9000);
  await peer.waitForEvents(3, 2000);
});

test.run();
