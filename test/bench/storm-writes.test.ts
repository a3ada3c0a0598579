/**
 * The storm-writes model (bench/lib/storm-writes.ts) through this build's receiver path and writer
 * thread on a real file: each group of panels is one commit, every event is stored, and the bytes
 * per event fall as more events share a commit (the pages a commit touches are written once whatever
 * it holds). The bytes are asserted only where the kernel counts them for the temp dir's file system
 * (a tmpfs has no writeback, so write_bytes stays 0 there).
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBytes } from '../../bench/lib/proc-io.js';
import { OWN_DIST, loadStormBuild, stormWrites } from '../../bench/lib/storm-writes.js';

const PANELS = 24;

function tempDirCountsWrites(): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-storm-writes-probe-'));
  try {
    const before = writeBytes('self');
    const fd = openSync(join(dir, 'probe'), 'w');
    writeSync(fd, Buffer.alloc(8192, 1));
    fsyncSync(fd);
    closeSync(fd);
    return writeBytes('self') > before;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('each group of panels is one commit, every event stored, fewer bytes per event in bigger commits', async () => {
  const build = await loadStormBuild(OWN_DIST);
  const one = await stormWrites(build, PANELS, 1);
  const eight = await stormWrites(build, PANELS, 8);
  assert.equal(
    one.map((w) => [w.wave, w.events, w.commits]),
    [
      ['loss', PANELS, PANELS],
      ['restore', PANELS, PANELS],
    ],
  );
  assert.equal(
    eight.map((w) => [w.wave, w.events, w.commits]),
    [
      ['loss', PANELS, 3],
      ['restore', PANELS, 3],
    ],
  );
  if (!tempDirCountsWrites()) {
    process.stdout.write('  (the temp dir does not count write_bytes: bytes not asserted)\n');
    return;
  }
  for (let w = 0; w < 2; w++) {
    assert.ok(one[w]!.bytes > 0, `${one[w]!.wave}: bytes counted`);
    assert.ok(
      eight[w]!.bytes < one[w]!.bytes / 2,
      `${one[w]!.wave}: 8 per commit ${eight[w]!.bytes} B, 1 per commit ${one[w]!.bytes} B`,
    );
  }
  // The loss writes a session row and a sighting with each event, the restore its event alone.
  assert.ok(one[0]!.bytes > one[1]!.bytes, `loss ${one[0]!.bytes} B > restore ${one[1]!.bytes} B`);
});

test('a short last group and the next wave each go in one commit per group (20 panels by 8)', async () => {
  const build = await loadStormBuild(OWN_DIST);
  // The loss wave ends with a group of 4; the restore wave starts with a group of 8.
  const waves = await stormWrites(build, 20, 8);
  assert.equal(
    waves.map((w) => [w.wave, w.commits]),
    [
      ['loss', 3],
      ['restore', 3],
    ],
  );
});

test('a group that does not go in one commit is refused, not counted', async () => {
  const build = await loadStormBuild(OWN_DIST);
  // More panels per commit than the ingest sends in one batch (2,000 items) cannot be one commit.
  try {
    await stormWrites(build, 2001, 2001);
    assert.unreachable('a split group was counted');
  } catch (err) {
    assert.match(String(err), /a group split/);
  }
});

test.run();
