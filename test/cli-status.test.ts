/**
 * `vigil status` as a process against a running gateway: the status view in text (receivers,
 * components), and --watch redrawing in place until SIGINT. The CLI finds the gateway from the
 * data dir's settings (api.api_http_port), as on the box.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLogger } from '../src/core/logger.js';
import { Gateway } from '../src/main.js';
import { defaultValidationEnv } from '../src/settings/environment.js';
import { SettingsService } from '../src/settings/settings-service.js';
import { statusText } from '../src/status-text.js';
import { Store } from '../src/store/store.js';
import { CLI } from './helpers/gateway-process.js';
import { freePort } from './helpers/net.js';
import { tempDir } from './helpers/temp-dir.js';

/** Runs the CLI; with `stopWhen`, sends SIGINT once its output satisfies it (at most 20 s). */
function run(
  args: string[],
  stopWhen: ((stdout: string) => boolean) | null,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stopWhen && !interrupted && stopWhen(stdout)) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const hard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(hard);
      resolve({ code, stdout, stderr });
    });
  });
}

test('vigil status prints the status view; --watch redraws it in place until interrupted', async () => {
  const dir = tempDir('vigil-status-');
  const http = await freePort();
  const rx = await freePort();
  const store = new Store(join(dir.path, 'vigil.db'), silentLogger);
  await store.start();
  const seed = new SettingsService({ store: store, env: defaultValidationEnv(), logger: silentLogger });
  await seed.start();
  const seeded = await seed.update({
    api: { api_http_port: http, bind_address: '127.0.0.1' },
    general: { instance_name: 'cabinet-7' },
    receivers: { tcp_receivers: [{ id: 1, name: 'rx', port: rx, bind_address: '127.0.0.1' }] },
  });
  assert.ok(seeded.ok);
  await store.stop();
  const gateway = new Gateway({ dataDir: dir.path, httpsPort: 0, logger: silentLogger });
  await gateway.start();
  try {
    const once = await run(['status', '--data-dir', dir.path], null);
    assert.is(once.code, 0, once.stderr);
    assert.match(once.stdout, /^cabinet-7 · Vigil \S+ · up \d+s/);
    assert.match(once.stdout, 'All systems normal');
    assert.match(once.stdout, /RECEIVERS\n {2}name +state +since +connected/);
    assert.match(once.stdout, /\n {2}rx:tcp:1 +ok /);
    assert.match(once.stdout, /\n {2}api:http \(api\) ok since/);
    assert.not.match(once.stdout, '\x1b['); // not a terminal: no colours
    const redraws = (text: string): number => text.split('\x1b[H').length - 1;
    const watched = await run(
      ['status', '--data-dir', dir.path, '--watch', '--interval', '1'],
      (text) => redraws(text) >= 2 && text.endsWith('Ctrl-C to quit)\x1b[K\n\x1b[J'),
    );
    assert.is(watched.code, 0, watched.stderr);
    assert.ok(redraws(watched.stdout) >= 2, `${redraws(watched.stdout)} redraws`);
    assert.match(watched.stdout, /\x1b\[H.*rx:tcp:1.*\x1b\[H.*rx:tcp:1/s);
    assert.match(watched.stdout, '(refreshing every 1 s; Ctrl-C to quit)');
    assert.ok(watched.stdout.endsWith('\x1b[?25h\n'), 'cursor shown again on exit');
  } finally {
    await gateway.stop();
  }
  const down = await run(['status', '--data-dir', dir.path], null);
  assert.is(down.code, 1);
  assert.match(down.stderr, `gateway not reachable at http://127.0.0.1:${http}`);
  dir.remove();
});

test('statusText: the same sections as the page, failed states coloured when asked', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const text = statusText(
    {
      instance_name: 'site',
      version: '1.0.0',
      started_at: '2026-01-01T11:00:00.000Z',
      uptime_s: 3600,
      store: { state: 'ok' },
      receivers: [
        {
          name: 'rx:udp:2',
          kind: 'receiver',
          state: 'failed',
          detail: 'EADDRINUSE',
          since: '2026-01-01T11:59:00.000Z',
          metrics: { connections: 0 },
        },
      ],
      outputs: [
        {
          name: 'out:1',
          kind: 'output',
          state: 'ok',
          detail: null,
          since: '2026-01-01T11:00:00.000Z',
          metrics: { connected: true, backlog: 3, last_ack_at: now - 5000, delivered: 9 },
        },
        {
          name: 'out:2',
          kind: 'output',
          state: 'ok',
          detail: null,
          since: '2026-01-01T11:00:00.000Z',
          metrics: { connected: true, listening: '0.0.0.0:1025', client: '192.0.2.7:40000', refused_clients: 1 },
        },
      ],
      components: [
        {
          name: 'modem:ttyUSB2',
          kind: 'modem',
          state: 'ok',
          detail: null,
          since: '2026-01-01T11:00:00.000Z',
          metrics: { csq: 18, rssi_dbm: -77 },
        },
      ],
    },
    { color: true, now },
  );
  assert.match(text, '\x1b[31mFault\x1b[0m');
  assert.match(text, /rx:udp:2 +\x1b\[31mfailed\x1b\[0m +1m00s ago/);
  assert.match(text, /out:1 +\x1b\[32mok\x1b\[0m +1h00m ago +up +3 +5s ago +9/);
  assert.match(
    text,
    /out:2 +\x1b\[32mok\x1b\[0m +1h00m ago +listening on 0\.0\.0\.0:1025, client 192\.0\.2\.7:40000; 1 refused /,
  );
  assert.match(text, 'modem:ttyUSB2 (modem) \x1b[32mok\x1b[0m since 1h00m ago\n      csq=18  rssi_dbm=-77');
});

test.run();
