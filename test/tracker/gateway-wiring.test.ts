/**
 * The supervision wiring in the real Gateway: internal events of the gateway's life reach the
 * journal of its SQLite store, the tracker leaves its checkpoint, and the API's failed logins count.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { Store } from '../../src/store/store.js';
import { CHECKPOINT_KEY } from '../../src/tracker/tracker.js';
import { readVersion } from '../../src/version.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

test('gateway_started, login_failed, settings_changed and gateway_stopping are journaled; the checkpoint is written', async () => {
  const dir = tempDir();
  try {
    const gateway = new Gateway({
      dataDir: dir.path,
      httpPort: await freePort(),
      httpsPort: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    });
    await gateway.start();
    try {
      const base = `http://127.0.0.1:${gateway.apiPorts().http}`;
      const res = await fetch(`${base}/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'nobody', password: 'wrong' }),
      });
      assert.is(res.status, 401);
      const result = await gateway.settings.update({ tracker: { timeout_multiplier: 5 } });
      assert.ok(result.ok);
    } finally {
      await gateway.stop();
    }
    const store = new Store(join(dir.path, 'vigil.db'), silentLogger);
    await store.start();
    try {
      const events = store.events.query({ receiverIds: null, limit: 100 }).items.reverse();
      assert.equal(
        events.map((e) => `${e.protocol} ${e.qualifier}${e.code} ${e.groupNo} ${e.zoneNo} #${e.account} ${e.text}`),
        [
          `INTERNAL E305 00 000 # Gateway started (version ${readVersion()})`,
          'INTERNAL E461 00 000 # Login failed (from 127.0.0.1)',
          'INTERNAL E306 00 000 # Settings changed (tracker)',
          'INTERNAL E308 00 000 # Gateway stopping',
        ],
      );
      const checkpoint = JSON.parse(store.meta.get(CHECKPOINT_KEY) ?? 'null') as {
        run_started_at: number;
        alive_at: number;
      };
      assert.ok(checkpoint.alive_at >= checkpoint.run_started_at);
    } finally {
      await store.stop();
    }
  } finally {
    dir.remove();
  }
});

test('the next start tells how the previous run ended: in gateway_started and as the last-run component', async () => {
  const dir = tempDir();
  try {
    const options = {
      dataDir: dir.path,
      httpPort: await freePort(),
      httpsPort: 0,
      host: '127.0.0.1',
      logger: silentLogger,
    };
    const first = new Gateway(options);
    await first.start();
    assert.is(first.health.get('last-run')?.detail, 'first start of this data dir');
    await first.stop();
    const second = new Gateway(options);
    await second.start();
    try {
      assert.match(second.health.get('last-run')?.detail ?? '', /^clean stop: stopped cleanly \(/);
    } finally {
      await second.stop();
    }
    const store = new Store(join(dir.path, 'vigil.db'), silentLogger);
    await store.start();
    try {
      const started = store.events
        .query({ receiverIds: null, limit: 100 })
        .items.filter((e) => e.code === '305')
        .map((e) => e.text);
      assert.is(started.length, 2);
      assert.ok(started.includes(`Gateway started (version ${readVersion()})`), started.join(' | '));
      const told = started.find((t) => t !== `Gateway started (version ${readVersion()})`) ?? '';
      assert.ok(
        told.startsWith(`Gateway started (version ${readVersion()}; previous run: clean stop: stopped cleanly (`),
        told,
      );
    } finally {
      await store.stop();
    }
  } finally {
    dir.remove();
  }
});

test.run();
