import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../src/core/logger.js';
import { SystemdNotifier } from '../../src/system/sd-notify.js';
import { sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

test('without NOTIFY_SOCKET nothing is sent', async () => {
  const calls: string[][] = [];
  const notifier = new SystemdNotifier({ env: {}, healthy: () => true, logger: silentLogger, run: async (a) => void calls.push(a) });
  await notifier.start();
  await notifier.stop();
  assert.equal(calls, []);
});

test('READY once, WATCHDOG at half of WATCHDOG_USEC only while healthy, STOPPING on stop', async () => {
  const calls: string[][] = [];
  let healthy = true;
  const env = { NOTIFY_SOCKET: '/run/fake', WATCHDOG_USEC: '200000' };
  const notifier = new SystemdNotifier({ env, healthy: () => healthy, logger: silentLogger, run: async (a) => void calls.push(a) });
  assert.is(notifier.watchdogIntervalMs(), 100);
  await notifier.start();
  await sleep(350);
  const fed = calls.filter((c) => c.includes('WATCHDOG=1')).length;
  assert.ok(fed >= 2 && fed <= 4, `fed ${fed} times`);
  healthy = false;
  await sleep(250);
  assert.is(calls.filter((c) => c.includes('WATCHDOG=1')).length, fed, 'not fed while unhealthy');
  await notifier.stop();
  assert.equal(calls[0], ['--no-block', '--ready', '--status=serving']);
  assert.equal(calls.at(-1), ['--no-block', 'STOPPING=1']);
});

test('a changed status line goes out once, with the next notification; unhealthy sends the status alone', async () => {
  const calls: string[][] = [];
  let healthy = true;
  let status = 'serving';
  const env = { NOTIFY_SOCKET: '/run/fake', WATCHDOG_USEC: '200000' };
  const notifier = new SystemdNotifier({ env, healthy: () => healthy, status: () => status, logger: silentLogger, run: async (a) => void calls.push(a) });
  await notifier.start();
  await sleep(120);
  healthy = false;
  status = 'self-check failing: store is not writable';
  await sleep(250);
  await notifier.stop();
  const sent = calls.map((c) => c.slice(1).join(' '));
  assert.is(sent[0], '--ready --status=serving');
  assert.ok(sent.includes('--status=self-check failing: store is not writable'), sent.join(' | '));
  assert.is(sent.filter((s) => s.includes('--status=self-check')).length, 1, 'sent once');
  assert.not.ok(sent.slice(sent.indexOf('--status=self-check failing: store is not writable')).some((s) => s.includes('WATCHDOG=1')));
});

test('the real systemd-notify delivers READY=1 to a notify socket', async () => {
  const dir = tempDir();
  const socket = join(dir.path, 'notify.sock');
  const receiver = spawn('socat', ['-u', `UNIX-RECV:${socket}`, 'STDOUT'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let received = '';
  receiver.stdout.on('data', (c: Buffer) => (received += c.toString()));
  try {
    await waitFor(() => existsSync(socket), 5000);
    const notifier = new SystemdNotifier({ env: { ...process.env, NOTIFY_SOCKET: socket }, healthy: () => true, logger: silentLogger });
    await notifier.start();
    await waitFor(() => received.includes('READY=1'), 5000);
    assert.match(received, /STATUS=serving/);
    await notifier.stop();
  } finally {
    receiver.kill();
    dir.remove();
  }
});

test.run();
