import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { readRunRecord, runRecordPath } from '../../src/system/run-record.js';
import { LAST_RUN_COMPONENT, RunRecorder } from '../../src/system/run-recorder.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

function recorder(
  dataDir: string,
  bootId: string,
  health = new HealthRegistry(),
): { rec: RunRecorder; health: HealthRegistry } {
  return {
    rec: new RunRecorder({
      dataDir,
      health,
      clock: new ManualClock(Date.UTC(2026, 10, 26, 12)),
      logger: silentLogger,
      bootId: () => bootId,
    }),
    health,
  };
}

test('a first start says so; a clean stop is told by the next start', async () => {
  const dir = tempDir();
  try {
    const first = recorder(dir.path, 'boot-1');
    await first.rec.start();
    assert.is(first.health.get(LAST_RUN_COMPONENT)!.detail, 'first start of this data dir');
    assert.is(first.rec.previousRunLine(), null);
    assert.is(readRunRecord(runRecordPath(dir.path))!.state, 'running');
    await first.rec.stop();
    assert.is(first.health.get(LAST_RUN_COMPONENT), undefined);
    const second = recorder(dir.path, 'boot-1');
    await second.rec.start();
    const component = second.health.get(LAST_RUN_COMPONENT)!;
    assert.is(component.state, 'ok');
    assert.match(component.detail!, /^clean stop: stopped cleanly \(2026-11-26T12:00:00\.000Z\)$/);
    assert.equal(component.metrics, { how: 'clean stop', at: Date.UTC(2026, 10, 26, 12), rebooted: false });
    await second.rec.stop();
  } finally {
    dir.remove();
  }
});

test('a watchdog kill recorded by ExecStopPost (vigil record-stop) is told by the next start', async () => {
  const dir = tempDir();
  try {
    const killed = recorder(dir.path, 'boot-1');
    await killed.rec.start(); // and never stopped: systemd killed it
    const out = execFileSync(process.execPath, [CLI, 'record-stop', '--data-dir', dir.path], {
      env: { ...process.env, SERVICE_RESULT: 'watchdog', EXIT_CODE: 'dumped', EXIT_STATUS: 'ABRT' },
      encoding: 'utf8',
    });
    assert.match(out, /^record-stop: watchdog: killed by systemd's watchdog \(SIGABRT\)/);
    // A second ExecStopPost (or one after a clean stop) changes nothing.
    const again = execFileSync(process.execPath, [CLI, 'record-stop', '--data-dir', dir.path], {
      env: { ...process.env, SERVICE_RESULT: 'success' },
      encoding: 'utf8',
    });
    assert.match(again, /already recorded/);
    const next = recorder(dir.path, 'boot-1');
    await next.rec.start();
    assert.match(
      next.rec.previousRunLine()!,
      /^watchdog: killed by systemd's watchdog \(SIGABRT\): no WATCHDOG=1 within WatchdogSec/,
    );
    await next.rec.stop();
  } finally {
    dir.remove();
  }
});

test('a run cut by a power loss (still running, another boot) is told as such', async () => {
  const dir = tempDir();
  try {
    const cut = recorder(dir.path, 'boot-1');
    await cut.rec.start();
    const next = recorder(dir.path, 'boot-2');
    await next.rec.start();
    assert.match(
      next.rec.previousRunLine()!,
      /^power loss or reset: the box lost power or was reset while the gateway ran .*; the box rebooted since$/,
    );
    await next.rec.stop();
  } finally {
    dir.remove();
  }
});

test('a damaged record is a first start, never an error; a data dir it cannot write keeps the service', async () => {
  const dir = tempDir();
  try {
    writeFileSync(runRecordPath(dir.path), '{"state": "runn');
    const damaged = recorder(dir.path, 'boot-1');
    await damaged.rec.start();
    assert.is(damaged.rec.previousRunLine(), null);
    await damaged.rec.stop();
    assert.is(JSON.parse(readFileSync(runRecordPath(dir.path), 'utf8')).how, 'clean stop');
    const missing = recorder(join(dir.path, 'no-such-dir'), 'boot-1');
    await missing.rec.start();
    await missing.rec.stop();
  } finally {
    dir.remove();
  }
});

test.run();
