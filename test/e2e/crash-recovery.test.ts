/**
 * Issue 4, "Done means": the gateway is killed with SIGKILL under load and restarted; afterwards
 * every event that was ACKed to a device reaches the automation peer (MLR2 over real TCP), and the
 * peer sees them in journal order (a line re-sent after the crash may repeat, none is reordered).
 * The gateway runs as a real `vigil serve` child process.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { Dc09Panel, eventFields } from '../helpers/dc09-panel.js';
import { applySettings, serveChild, waitHealthy } from '../helpers/gateway-process.js';
import { LOOPBACK, freePort, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { Mlr2Peer } from '../outputs/helpers/mlr2-peer.js';

const DEVICES = 40;
const MAX_EVENTS_PER_DEVICE = 900;
/** Events ACKed before the SIGKILL (40 panels keep sending: the kill comes mid-stream). */
const ACKED_BEFORE_KILL = 500;

/** The MLR2 line the automation peer must receive for a panel's event n (receiver 02, line 5). */
function mlr2Line(account: string, n: number): string {
  const { group, zone } = eventFields(n);
  return `5025 18${account}E130${group}${zone}`;
}

test('SIGKILL under load: after the restart every ACKed event reaches the MLR2 peer, in journal order', async () => {
  const dir = tempDir();
  const peer = new Mlr2Peer();
  await peer.listen();
  const httpPort = await freePort();
  const rxPort = await freePort();
  let child = serveChild(dir.path, httpPort);
  try {
    await waitHealthy(httpPort);
    await applySettings(dir.path, httpPort, ['settings', 'restart_services'], {
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
      outputs: [
        {
          id: 4,
          name: 'automation',
          type: 1,
          protocol: 'MLR2',
          identificator: `${LOOPBACK}:${peer.port}`,
          oid: 0xa1,
          receiver_number: 2,
          line_number: 5,
        },
      ],
    });

    const panels = Array.from(
      { length: DEVICES },
      (_, i) => new Dc09Panel((0x1000 + i).toString(16).toUpperCase(), rxPort, { maxEvents: MAX_EVENTS_PER_DEVICE }),
    );
    // Killed mid-stream once enough events are ACKed (a count, not a time: a busy machine ACKs fewer a second).
    const ackedCount = (): number => panels.reduce((sum, p) => sum + p.acked.length, 0);
    await waitFor(() => ackedCount() > ACKED_BEFORE_KILL, 60_000, 10);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    for (const panel of panels) panel.stop();
    const acked = panels.flatMap((p) => p.acked.map((n) => mlr2Line(p.account, n)));
    assert.ok(acked.length > ACKED_BEFORE_KILL, `${acked.length} events ACKed before the kill`);

    child = serveChild(dir.path, httpPort);
    await waitHealthy(httpPort);
    const undelivered = (): string[] => {
      const delivered = new Set(peer.events());
      return acked.filter((line) => !delivered.has(line));
    };
    await waitFor(() => undelivered().length === 0, 30_000, 100).catch(() => undefined);
    const missing = undelivered();
    assert.is(
      missing.length,
      0,
      `${missing.length} ACKed events never reached the peer, e.g. ${missing.slice(0, 3).join(', ')}`,
    );

    // Journal order: read the ids from the store (WAL lets a reader in beside the running gateway).
    const store = new Store(join(dir.path, 'vigil.db'), silentLogger, undefined, { readonly: true });
    await store.start();
    const idOf = new Map<string, number>();
    try {
      for (let after = 0; ; ) {
        const batch = store.events.readAfter(after, 5000);
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.protocol === 'ADM-CID')
            idOf.set(`5025 18${event.account}E${event.code}${event.groupNo}${event.zoneNo}`, event.id);
        }
        after = batch[batch.length - 1]!.id;
      }
    } finally {
      await store.stop();
    }
    const firstArrivals = peer.distinctEvents().filter((line) => idOf.has(line));
    const ids = firstArrivals.map((line) => idOf.get(line)!);
    for (let i = 1; i < ids.length; i++)
      assert.ok(ids[i]! > ids[i - 1]!, `line ${firstArrivals[i]} (id ${ids[i]}) arrived after id ${ids[i - 1]}`);
    const duplicates = peer.events().length - peer.distinctEvents().length;
    assert.ok(duplicates <= 1000, `${duplicates} lines were sent twice: more than one cursor flush window`);
  } finally {
    child.kill('SIGKILL');
    await peer.close();
    dir.remove();
  }
});

test.run();
