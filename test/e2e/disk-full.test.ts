/**
 * A full card, for real: `vigil serve` runs with its data dir on a 16 MiB tmpfs, a filler file
 * takes the rest, and a panel keeps sending (resending what gets no ACK, as panels do). While no
 * commit can succeed no event may be ACKed, the store reports `failed` and `storage` says the card
 * is low (docs/store.md §Free space); once the filler is gone the same gateway process takes the
 * resent events again, and every event that was ever ACKed is in the journal. Needs root (mount).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { Dc09Panel, eventNumber } from '../helpers/dc09-panel.js';
import { applySettings, serveChild, waitHealthy } from '../helpers/gateway-process.js';
import { LOOPBACK, freePort, sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

const CARD_MIB = 16;
const RESEND_MS = 300;
const MAX_EVENTS = 20_000;

/** Writes zeros until the file system refuses (ENOSPC); returns the filler's path. */
function fillUp(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let i = 0; i < CARD_MIB * 16 + 16; i++) writeSync(fd, chunk);
    throw new Error(`the ${CARD_MIB} MiB tmpfs never filled`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  return path;
}

test('a full card: nothing is ACKed that is not stored, the store and storage say so, and the same process recovers once space is back', async () => {
  const dir = tempDir();
  const data = join(dir.path, 'data');
  mkdirSync(data);
  try {
    execFileSync(tool('mount'), ['-t', 'tmpfs', '-o', `size=${CARD_MIB}m,mode=0700`, 'tmpfs', data]);
  } catch (err) {
    dir.remove();
    throw new Error(`this test mounts a ${CARD_MIB} MiB tmpfs and needs root: ${String(err)}`);
  }
  const httpPort = await freePort();
  const rxPort = await freePort();
  const child = serveChild(data, httpPort);
  let panel: Dc09Panel | null = null;
  try {
    await waitHealthy(httpPort);
    const headers = await applySettings(data, httpPort, ['settings', 'restart_services'], {
      receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rxPort, bind_address: LOOPBACK }], udp_receivers: [] },
    });
    const status = async (): Promise<{ components: { name: string; state: string; detail: string | null }[] }> =>
      (await (await fetch(`http://${LOOPBACK}:${httpPort}/api/status`, { headers })).json()) as {
        components: { name: string; state: string; detail: string | null }[];
      };
    const component = async (name: string): Promise<{ state: string; detail: string | null } | undefined> =>
      (await status()).components.find((c) => c.name === name);

    // A 16 MiB card is under the 256 MiB floor from the start.
    const storage = await component('storage');
    assert.is(storage?.state, 'degraded');
    assert.match(storage?.detail ?? '', /^low on space: [\d.]+ MiB free of 16\.0 MiB/);

    panel = new Dc09Panel('7F01', rxPort, { maxEvents: MAX_EVENTS, resendMs: RESEND_MS });
    await waitFor(() => panel!.acked.length >= 200, 10_000);
    const filler = fillUp(data);

    // The WAL reuses its own blocks until a checkpoint needs the database file to grow: then commits fail.
    await waitFor(async () => (await component('store'))?.state === 'failed', 30_000, 100).catch(async () => {
      throw new Error(
        `the store never failed on the full card; acked ${panel!.acked.length}; store ${JSON.stringify(await component('store'))}`,
      );
    });
    const store = await component('store');
    assert.match(store?.detail ?? '', /journal write failed: .*(full|SQLITE_FULL)/i);
    assert.is((await fetch(`http://${LOOPBACK}:${httpPort}/health`)).status, 503, '/health says the store failed');
    const ackedWhenFull = panel.acked.length;
    await sleep(3 * RESEND_MS + 500);
    assert.is(panel.acked.length, ackedWhenFull, 'no ACK while nothing can be committed (resends included)');
    assert.ok(panel.connected, 'the device stays connected');

    rmSync(filler);
    await waitFor(() => panel!.acked.length >= ackedWhenFull + 100, 15_000, 50).catch(() => {
      throw new Error(`no ACKs after space came back: ${panel!.acked.length} against ${ackedWhenFull} when full`);
    });
    await waitFor(async () => (await component('store'))?.state === 'ok', 5_000, 100);
    panel.stop();
    const acked = panel.acked;
    panel = null;

    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    const journal = new Store(join(data, 'vigil.db'), silentLogger, undefined, { readonly: true });
    await journal.start();
    const stored = new Set<number>();
    try {
      for (let after = 0; ; ) {
        const batch = journal.events.readAfter(after, 5000);
        if (batch.length === 0) break;
        for (const event of batch) {
          if (event.account === '7F01') stored.add(eventNumber(event.groupNo, event.zoneNo));
        }
        after = batch[batch.length - 1]!.id;
      }
    } finally {
      await journal.stop();
    }
    const lost = acked.filter((zone) => !stored.has(zone));
    assert.is(
      lost.length,
      0,
      `${lost.length} ACKed events are not in the journal, e.g. ${lost.slice(0, 5).join(', ')}`,
    );
    assert.ok(acked.length >= ackedWhenFull + 100);
  } finally {
    panel?.stop();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sleep(200);
    spawnSync(tool('umount'), ['-l', data]);
    dir.remove();
  }
});

test.run();
