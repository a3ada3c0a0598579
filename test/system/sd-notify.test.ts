import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { createSocket, type UnixDgramSocket } from 'unix-dgram';
import { createLogger, silentLogger } from '../../src/core/logger.js';
import { notifyMessage, SystemdNotifier } from '../../src/system/sd-notify.js';
import { sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A notify socket like systemd's: an AF_UNIX datagram socket bound to a path; every datagram kept. */
function notifySocket(): { path: string; received: string[]; close: () => void } {
  const dir = tempDir();
  const path = join(dir.path, 'notify.sock');
  const received: string[] = [];
  const socket: UnixDgramSocket = createSocket('unix_dgram', (msg) => received.push(msg.toString()));
  socket.bind(path);
  return {
    path,
    received,
    close: () => {
      socket.close();
      dir.remove();
    },
  };
}

test('a message is KEY=value lines; a status line cannot break out of its line', () => {
  assert.is(
    notifyMessage([
      ['READY', '1'],
      ['STATUS', 'store\nWATCHDOG=1'],
    ]).toString(),
    'READY=1\nSTATUS=store WATCHDOG=1\n',
  );
});

test('without NOTIFY_SOCKET nothing is sent and nothing is opened', async () => {
  const notifier = new SystemdNotifier({ env: {}, healthy: () => true, logger: silentLogger });
  await notifier.start();
  await notifier.stop();
});

test('READY once, WATCHDOG at half of WATCHDOG_USEC only while healthy, STOPPING on stop', async () => {
  const sock = notifySocket();
  let healthy = true;
  const env = { NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '200000' };
  const notifier = new SystemdNotifier({ env, healthy: () => healthy, logger: silentLogger });
  try {
    assert.is(notifier.watchdogIntervalMs(), 100);
    const feeds = () => sock.received.filter((m) => m === 'WATCHDOG=1\n').length;
    const started = Date.now();
    await notifier.start();
    await waitFor(() => feeds() >= 2, 10_000);
    // Never more often than every 100 ms (a busy machine may feed less often, never more).
    assert.ok(feeds() <= (Date.now() - started) / 100 + 1, `fed ${feeds()} times in ${Date.now() - started} ms`);
    healthy = false;
    // The receiving socket lives in this process: at most the one feed sent in the tick before the turn
    // can still be on its way. Four feeding periods later nothing else came.
    const fedAtTurn = feeds();
    await sleep(400);
    assert.ok(feeds() <= fedAtTurn + 1, `fed ${feeds() - fedAtTurn} times after turning unhealthy`);
    await notifier.stop();
    await waitFor(() => sock.received.at(-1) === 'STOPPING=1\n', 2000);
    assert.is(sock.received[0], 'READY=1\nSTATUS=serving\n');
  } finally {
    // The notifier's socket is a native handle: a failed assertion must not leave it holding the process.
    await notifier.stop();
    sock.close();
  }
});

test('a changed status line goes out once, with the next notification; unhealthy sends the status alone', async () => {
  const sock = notifySocket();
  let healthy = true;
  let status = 'serving';
  const env = { NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '200000' };
  const notifier = new SystemdNotifier({ env, healthy: () => healthy, status: () => status, logger: silentLogger });
  try {
    await notifier.start();
    await waitFor(() => sock.received.includes('WATCHDOG=1\n'), 10_000);
    healthy = false;
    status = 'self-check failing: store is not writable';
    await waitFor(() => sock.received.includes('STATUS=self-check failing: store is not writable\n'), 10_000);
    await sleep(250); // two more feeding periods: the status is not sent again
    await notifier.stop();
    await waitFor(() => sock.received.at(-1) === 'STOPPING=1\n', 2000);
    const sent = sock.received;
    const failing = sent.indexOf('STATUS=self-check failing: store is not writable\n');
    assert.ok(failing > 0, sent.join(' | '));
    assert.is(sent.filter((m) => m.includes('STATUS=self-check')).length, 1, 'sent once');
    assert.not.ok(sent.slice(failing).some((m) => m.includes('WATCHDOG=1')));
  } finally {
    await notifier.stop();
    sock.close();
  }
});

// systemd matches a notification to its unit by the sender's PID; a child that has exited by then is
// matched to nothing (systemd-notify(1)). The datagrams must leave from this process: with no PATH at
// all, a notifier that spawned `systemd-notify` would send nothing.
test('the datagrams leave from the gateway process itself, not from a spawned systemd-notify', async () => {
  const sock = notifySocket();
  const env = { NOTIFY_SOCKET: sock.path, WATCHDOG_USEC: '200000', PATH: '' };
  const notifier = new SystemdNotifier({ env, healthy: () => true, logger: silentLogger });
  try {
    await notifier.start();
    await waitFor(() => sock.received.includes('WATCHDOG=1\n'), 2000);
    assert.is(sock.received[0], 'READY=1\nSTATUS=serving\n');
  } finally {
    await notifier.stop();
    sock.close();
  }
});

test('an abstract NOTIFY_SOCKET is refused with a log line, not thrown', async () => {
  const lines: string[] = [];
  const logger = createLogger('sd-notify', (line) => void lines.push(line), 'error');
  const notifier = new SystemdNotifier({ env: { NOTIFY_SOCKET: '@vigil-test' }, healthy: () => true, logger });
  await notifier.start();
  await notifier.stop();
  assert.ok(
    lines.some((l) => l.includes('NOTIFY_SOCKET is not a file path')),
    lines.join('|'),
  );
});

test.run();
