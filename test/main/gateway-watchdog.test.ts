/**
 * The gateway's systemd wiring end to end (docs/watchdog.md): with NOTIFY_SOCKET and WATCHDOG_USEC
 * set, the notifier delivers READY=1 and then WATCHDOG=1 to a fake notify socket
 * (socat UNIX-RECV); once the store refuses writes the self-check fails and the feeding stops.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway } from '../../src/main.js';
import { FakeSysfs } from '../helpers/fake-sysfs.js';
import { freePort, sleep, waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { tool } from '../helpers/system-tools.js';

test('READY=1 once started, WATCHDOG=1 while the self-check passes, none once the store is gone', async () => {
  const dir = tempDir();
  const sysfs = new FakeSysfs();
  const socket = join(dir.path, 'notify.sock');
  const receiver = spawn(tool('socat'), ['-u', `UNIX-RECV:${socket}`, 'STDOUT'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let received = '';
  receiver.stdout.on('data', (c: Buffer) => (received += c.toString()));
  const watchdogs = () => received.split('WATCHDOG=1').length - 1;
  await waitFor(() => existsSync(socket), 5000);
  const gateway = new Gateway({
    dataDir: join(dir.path, 'data'),
    httpPort: await freePort(),
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    sysfsRoot: sysfs.root,
    env: { ...process.env, NOTIFY_SOCKET: socket, WATCHDOG_USEC: '400000' },
  });
  try {
    await gateway.start();
    await waitFor(() => received.includes('READY=1') && watchdogs() >= 2, 5000);
    assert.ok(received.indexOf('READY=1') < received.indexOf('WATCHDOG=1'), 'ready first');
    await gateway.store.stop();
    await waitFor(() => gateway.health.get('self-check')?.state === 'failed', 8000, 50);
    assert.match(gateway.health.get('self-check')!.detail!, /store is not writable/);
    await waitFor(() => received.includes('STATUS=self-check failing: store is not writable'), 10_000);
    // Datagrams from the gateway arrive in the order it sent them: once the failing status is here, a
    // feed sent before it has landed too. Five feeding periods later, none came after it.
    await sleep(1000);
    const failing = received.indexOf('STATUS=self-check failing: store is not writable');
    assert.not.ok(received.slice(failing).includes('WATCHDOG=1'), 'not fed while the self-check fails');
  } finally {
    await gateway.stop();
    receiver.kill();
    sysfs.remove();
    dir.remove();
  }
});

test.run();
