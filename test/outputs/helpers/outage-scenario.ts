/**
 * The outage of the automation computer that every one-byte-ACK output (MLR2, Ademco 685) must survive: one event
 * delivered, the peer gone while 20 more are journaled in 4 batches, the output failed, the peer back on the same
 * port: all 21 arrive, none lost, and no transmission (duplicates included) comes after a later one.
 */
import * as assert from 'uvu/assert';
import { sleep, waitFor } from '../../helpers/net.js';
import { cidEvent, type OutputFixture } from './output-fixture.js';

export interface OutagePeer {
  readonly port: number;
  listen(port?: number): Promise<number>;
  close(): Promise<void>;
  events(): string[];
  distinctEvents(): string[];
  waitForEvents(count: number, timeoutMs?: number): Promise<void>;
}

/** Runs the outage against a started output; `message(n)` is the text of the event of zone n; `whileFailed` checks. */
export async function survivesOutage(
  fx: OutputFixture,
  peer: OutagePeer,
  message: (n: number) => string,
  whileFailed: () => void = () => undefined,
): Promise<void> {
  const zone = (n: number): string => String(n).padStart(3, '0');
  await fx.append([cidEvent({ zoneNo: zone(1) })]);
  await peer.waitForEvents(1);
  const port = peer.port;
  await peer.close();
  for (let batch = 0; batch < 4; batch++) {
    await fx.append(Array.from({ length: 5 }, (_, i) => cidEvent({ zoneNo: zone(2 + batch * 5 + i) })));
    await sleep(60);
  }
  await waitFor(() => fx.states.some((s) => s.state === 'failed'), 3000);
  whileFailed();
  await peer.listen(port);
  await waitFor(() => fx.states.some((s) => s.state === 'restored'), 3000);
  await waitFor(() => peer.distinctEvents().length === 21, 3000);
  const expected = Array.from({ length: 21 }, (_, i) => message(i + 1));
  assert.equal(peer.distinctEvents(), expected);
  // Order holds for every transmission, duplicates included: no line after a later one.
  const order = peer.events().map((t) => expected.indexOf(t));
  assert.ok(
    order.every((v, i) => i === 0 || v >= order[i - 1]!),
    `out of order: ${order.join(',')}`,
  );
}
