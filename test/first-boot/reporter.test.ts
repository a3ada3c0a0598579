import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HealthRegistry } from '../../src/core/health.js';
import { FirstBootReporter } from '../../src/first-boot/reporter.js';
import { STATUS_FILE, writeStatus } from '../../src/first-boot/status.js';
import { tempDir } from '../helpers/temp-dir.js';

async function report(setup: (dir: string) => void): Promise<HealthRegistry> {
  const dir = tempDir('vigil-first-boot-report-');
  try {
    setup(dir.path);
    const health = new HealthRegistry(() => 0);
    await new FirstBootReporter(dir.path, health).start();
    return health;
  } finally {
    dir.remove();
  }
}

test('no status file (a development PC) reports nothing', async () => {
  assert.is((await report(() => undefined)).get('first-boot'), undefined);
});

test('a rejected file is a failed first-boot component naming every line', async () => {
  const health = await report((dir) =>
    writeStatus(dir, {
      outcome: 'rejected',
      at: '2026-11-23T22:00:00.000Z',
      applied: [],
      errors: [
        { line: 2, message: 'a: b' },
        { line: 0, message: 'applying failed: EROFS' },
      ],
    }),
  );
  const c = health.get('first-boot');
  assert.equal(c && [c.kind, c.state, c.detail, c.metrics.errors], [
    'first-boot',
    'failed',
    'vigil-setup.txt rejected: line 2: a: b; applying failed: EROFS',
    2,
  ]);
  assert.equal(
    health.failing().map((f) => f.name),
    ['first-boot'],
  );
});

test('no setup file on the first boot is ok: defaults kept', async () => {
  const health = await report((dir) =>
    writeStatus(dir, { outcome: 'absent', at: '2026-11-23T22:00:00.000Z', applied: [], errors: [] }),
  );
  assert.equal(
    [health.get('first-boot')?.state, health.get('first-boot')?.detail],
    ['ok', 'no vigil-setup.txt: defaults kept'],
  );
});

test('a damaged status file is failed, not a crash', async () => {
  const health = await report((dir) => writeFileSync(join(dir, STATUS_FILE), '{"outcome": "appl'));
  assert.is(health.get('first-boot')?.state, 'failed');
  assert.match(health.get('first-boot')?.detail ?? '', /^first-boot-status\.json: /);
});

test('stop removes the component', async () => {
  const dir = tempDir('vigil-first-boot-report-');
  try {
    writeStatus(dir.path, { outcome: 'applied', at: '2026-11-23T22:00:00.000Z', applied: ['x'], errors: [] });
    const health = new HealthRegistry(() => 0);
    const reporter = new FirstBootReporter(dir.path, health);
    await reporter.start();
    assert.is(health.get('first-boot')?.state, 'ok');
    await reporter.stop();
    assert.is(health.get('first-boot'), undefined);
  } finally {
    dir.remove();
  }
});

test.run();
