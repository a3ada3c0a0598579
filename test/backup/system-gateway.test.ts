/**
 * /api/system on a real gateway (src/main.ts wiring, docs/backup.md "API"): the first account holds
 * `system_update` as a grant from its first start; the report carries the real last-run component and
 * the data dir's free space; the restart is offered only when the process's owner gave a way to stop;
 * an upload a power cut left half-received is removed at the start.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { Gateway } from '../../src/main.js';
import { readVersion } from '../../src/version.js';
import { freePort } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

test('the first account reads GET /api/system of a freshly started gateway; the restart is offered when a stop was given', async () => {
  const dir = tempDir('vigil-system-');
  // An upload cut by a power loss on an earlier run: removed at the start.
  writeFileSync(join(dir.path, '.restore-upload-0b7e1f0a'), 'VGLBKP01 half of a file');
  let stops = 0;
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    requestStop: () => (stops += 1),
  });
  await gateway.start();
  try {
    const base = `http://127.0.0.1:${gateway.apiPorts().http}`;
    const [login, password] = readFileSync(join(dir.path, PASSWORD_FILE), 'utf8').trim().split('\n') as [
      string,
      string,
    ];
    const res = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login, password }),
    });
    const { token } = (await res.json()) as { token: string };
    assert.equal(gateway.store.grants.get(1), ['device_control', 'restart_services', 'system_update']);
    const system = await fetch(`${base}/api/system`, { headers: { Authorization: `Bearer ${token}` } });
    assert.is(system.status, 200);
    const report = (await system.json()) as Record<string, unknown>;
    assert.is(report.version, readVersion());
    assert.is(report.instance_id, null, 'no instance id before a MySQL mirror made one');
    assert.equal(report.last_run, { detail: 'first start of this data dir', how: null, at: null, rebooted: null });
    assert.is(typeof report.data_free_mib, 'number');
    assert.is(report.restore_pending, null);
    assert.is(report.restart_available, true);
    assert.is(report.slots, null);
    assert.not.ok(existsSync(join(dir.path, '.restore-upload-0b7e1f0a')), 'the half-received upload is gone');
    // Started a moment ago: a restart now would count towards systemd's start limit.
    const restart = await fetch(`${base}/api/system/restart`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.is(restart.status, 409);
    assert.is(stops, 0);
  } finally {
    await gateway.stop();
    dir.remove();
  }
});

test.run();
