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
  run: { invocation?: string; slot?: string } = {},
): { rec: RunRecorder; health: HealthRegistry } {
  return {
    rec: new RunRecorder({
      dataDir,
      health,
      clock: new ManualClock(Date.UTC(2026, 10, 26, 12)),
      logger: silentLogger,
      bootId: () => bootId,
      ...(run.invocation ? { invocation: run.invocation } : {}),
      ...(run.slot ? { slot: () => run.slot! } : {}),
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

test('a unit run that fails before the gateway marks it is recorded as never started, with its slot', async () => {
  const dir = tempDir();
  try {
    const cmdline = join(dir.path, 'cmdline');
    writeFileSync(cmdline, 'root=PARTUUID=5649474c-03 rauc.slot=B ro\n');
    const b = recorder(dir.path, 'boot-1', new HealthRegistry(), { invocation: 'inv-1', slot: 'B' });
    await b.rec.start();
    await b.rec.stop();
    const stopPost = (invocation: string, status: string) =>
      execFileSync(process.execPath, [CLI, 'record-stop', '--data-dir', dir.path], {
        env: {
          ...process.env,
          INVOCATION_ID: invocation,
          SERVICE_RESULT: 'exit-code',
          EXIT_CODE: 'exited',
          EXIT_STATUS: status,
          VIGIL_CMDLINE: cmdline,
        },
        encoding: 'utf8',
      });
    // The ExecStopPost of the run the gateway marked and stopped itself: nothing to add.
    assert.match(stopPost('inv-1', '0'), /already recorded/);
    // Another unit run whose ExecStart failed: the gateway never marked it.
    assert.match(stopPost('inv-2', '1'), /^record-stop: the gateway never started: crash: exited with status 1/);
    const record = readRunRecord(runRecordPath(dir.path))!;
    assert.equal(
      record.recent_ends.map((e) => [e.slot, e.started, e.how, e.detail]),
      [
        ['B', true, 'clean stop', 'stopped cleanly'],
        ['B', false, 'crash', 'exited with status 1'],
      ],
    );
    assert.match(stopPost('inv-3', '1'), /never started/);
    assert.is(readRunRecord(runRecordPath(dir.path))!.recent_ends.length, 3, 'each failed start once');
    const next = recorder(dir.path, 'boot-2', new HealthRegistry(), { invocation: 'inv-4', slot: 'A' });
    await next.rec.start();
    assert.match(next.rec.previousRunLine()!, /^crash: the gateway never started: exited with status 1 \(/);
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
