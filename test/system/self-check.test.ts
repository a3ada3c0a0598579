/**
 * The watchdog's internal checks (src/system/self-check.ts) over a real store and journal writer
 * thread, and the gating end to end: the notifier delivers WATCHDOG=1 to a fake notify
 * socket (socat UNIX-RECV) only while the checks pass.
 */
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HealthRegistry } from '../../src/core/health.js';
import { createLogger, silentLogger } from '../../src/core/logger.js';
import { EventIngest } from '../../src/ingest/event-ingest.js';
import { WriterProxy } from '../../src/writer/writer-proxy.js';
import { Store } from '../../src/store/store.js';
import { SystemdNotifier } from '../../src/system/sd-notify.js';
import { SelfCheck, type SelfCheckBounds } from '../../src/system/self-check.js';
import { frame } from '../ingest/helpers/items.js';
import { sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Busy: nothing else runs in this thread meanwhile.
  }
}

async function rig(bounds: Partial<SelfCheckBounds>, script?: URL) {
  const dir = tempDir('vigil-selfcheck-');
  const path = join(dir.path, 'vigil.db');
  const health = new HealthRegistry();
  const logs: string[] = [];
  const logger = createLogger('t', (l) => logs.push(l), 'info');
  const store = new Store(path, silentLogger, health);
  await store.start();
  const writer = new WriterProxy({ path, logger: silentLogger, ...(script ? { script } : {}) });
  const ingest = new EventIngest({ writer, logger: silentLogger });
  store.onStop(() => ingest.close());
  const check = new SelfCheck({ health, store, writer: ingest.writerProbe, logger, bounds });
  return {
    path,
    store,
    ingest,
    writer,
    health,
    check,
    logs,
    async close() {
      await check.stop();
      await store.stop();
      dir.remove();
    },
  };
}

test('all well: passing, component self-check ok with its figures', async () => {
  const r = await rig({ intervalMs: 60_000 });
  try {
    await r.ingest.submit([frame('W001')]);
    await r.check.start();
    assert.ok(r.check.passing());
    const component = r.health.get('self-check')!;
    assert.equal([component.kind, component.state, component.detail], ['self-check', 'ok', null]);
    assert.equal(Object.keys(component.metrics).sort(), ['last_commit_at', 'loop_lag_ms', 'writer_stalled_ms']);
    assert.type(component.metrics.last_commit_at, 'number');
  } finally {
    await r.close();
  }
});

test('a blocked event loop fails the next check, once; the one after passes again', async () => {
  const r = await rig({ intervalMs: 60_000, loopLagMs: 150 });
  try {
    await r.check.start();
    await sleep(50);
    blockLoop(400);
    await sleep(30);
    const failed = await r.check.run();
    assert.is(failed.failures.length, 1);
    assert.match(failed.failures[0]!, /^event loop blocked for (\d+) ms \(limit 150 ms\)$/);
    assert.is(r.check.passing(), false);
    assert.is(r.health.get('self-check')!.state, 'failed');
    await sleep(50);
    assert.equal((await r.check.run()).failures, []);
    assert.ok(r.check.passing());
    assert.ok(r.logs.some((l) => l.includes('self-check failing') && l.includes('event loop blocked')));
    assert.ok(r.logs.some((l) => l.includes('self-check passing again')));
  } finally {
    await r.close();
  }
});

test('a journal writer that stops answering fails the check until it answers', async () => {
  const r = await rig(
    { intervalMs: 60_000, writerStallMs: 200 },
    new URL('../ingest/helpers/slow-ping-writer.js', import.meta.url),
  );
  try {
    await r.ingest.submit([frame('W002')]);
    writeFileSync(`${r.path}.stall`, '900');
    await r.check.start(); // pings the writer, which now stalls
    await sleep(400);
    const failed = await r.check.run();
    assert.equal(failed.failures.length, 1);
    assert.match(failed.failures[0]!, /^journal writer has not answered for \d+ ms \(limit 200 ms\)$/);
    await waitFor(() => r.writer.liveness().stalledMs === 0, 3000, 10);
    assert.equal((await r.check.run()).failures, []);
  } finally {
    await r.close();
  }
});

test('a store that takes no writes fails the check', async () => {
  const r = await rig({ intervalMs: 60_000 });
  try {
    await r.check.start();
    assert.ok(r.check.passing());
    await r.store.stop();
    assert.equal((await r.check.run()).failures, ['store is not writable']);
    assert.is(r.check.passing(), false);
    await r.store.start();
  } finally {
    await r.close();
  }
});

test('while the writer commits, its commits prove the store writable: no probe write contends with it', async () => {
  const r = await rig({ intervalMs: 60_000 });
  try {
    let probes = 0;
    const check = new SelfCheck({
      health: r.health,
      writer: r.ingest.writerProbe,
      logger: silentLogger,
      bounds: { intervalMs: 60_000 },
      store: { isWritable: () => (probes++, r.store.isWritable()) },
    });
    await check.run();
    assert.is(probes, 1, 'the first check always probes');
    await r.ingest.submit([frame('W003')]);
    await r.ingest.submit([frame('W004')]);
    assert.equal((await check.run()).failures, []);
    assert.is(probes, 1, 'commits since the last check: no probe');
    assert.equal((await check.run()).failures, []);
    assert.is(probes, 2, 'idle again: probed');
  } finally {
    await r.close();
  }
});

test('a passing result that is not renewed goes stale: a stopped check timer cannot keep the watchdog fed', async () => {
  const r = await rig({ intervalMs: 40 });
  try {
    await r.check.run();
    assert.ok(r.check.passing());
    await sleep(150);
    assert.is(r.check.passing(), false, 'older than 2.5 intervals');
  } finally {
    await r.close();
  }
});

test('gating end to end: the notifier sends WATCHDOG=1 while the checks pass, none while the store refuses writes', async () => {
  const r = await rig({ intervalMs: 50 });
  const dir = tempDir('vigil-notify-');
  const socket = join(dir.path, 'notify.sock');
  const receiver = spawn(tool('socat'), ['-u', `UNIX-RECV:${socket}`, 'STDOUT'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let received = '';
  receiver.stdout.on('data', (c: Buffer) => (received += c.toString()));
  const watchdogs = () => received.split('WATCHDOG=1').length - 1;
  try {
    await waitFor(() => existsSync(socket), 5000);
    await r.check.start();
    const notifier = new SystemdNotifier({
      env: { ...process.env, NOTIFY_SOCKET: socket, WATCHDOG_USEC: '300000' },
      healthy: () => r.check.passing(),
      // The status line marks the turn in the datagram stream (datagrams arrive in the order sent).
      status: () => (r.check.passing() ? 'serving' : 'failing'),
      logger: silentLogger,
    });
    await notifier.start();
    await waitFor(() => watchdogs() >= 2, 20_000);
    await r.store.stop();
    await waitFor(() => received.includes('STATUS=failing'), 20_000);
    await sleep(700); // four feeding periods
    const turn = received.indexOf('STATUS=failing');
    assert.not.ok(received.slice(turn).includes('WATCHDOG=1'), 'not fed while the store refuses writes');
    const fed = watchdogs();
    await r.store.start();
    await waitFor(() => watchdogs() > fed, 20_000);
    await notifier.stop();
  } finally {
    receiver.kill();
    dir.remove();
    await r.close();
  }
});

test.run();
