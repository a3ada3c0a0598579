import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCli } from '../src/cli-args.js';
import { UsageError } from '../src/core/usage-error.js';

const isUsage = (err: unknown): boolean => err instanceof UsageError;

test('serve takes the data dir, both ports and the host; flags are optional', () => {
  assert.equal(
    parseCli(['serve', '--data-dir', '/d', '--http-port', '8080', '--https-port', '0', '--host', '127.0.0.1']),
    {
      command: 'serve',
      dataDir: '/d',
      httpPort: 8080,
      httpsPort: 0,
      host: '127.0.0.1',
    },
  );
  assert.equal(parseCli(['serve'], {}), { command: 'serve', dataDir: './data' });
  assert.equal(parseCli(['serve'], { VIGIL_DATA_DIR: '/var/lib/vigil' }), {
    command: 'serve',
    dataDir: '/var/lib/vigil',
  });
});

test('bad ports, unknown flags and unknown commands are usage errors', () => {
  assert.throws(() => parseCli(['serve', '--http-port', '65536']), isUsage);
  assert.throws(() => parseCli(['serve', '--http-port', '80a']), isUsage);
  assert.throws(() => parseCli(['serve', '--nope']));
  assert.throws(() => parseCli(['frobnicate']), isUsage);
});

test('token needs known scopes and a minute count within the user token range', () => {
  assert.equal(
    parseCli(['token', '--data-dir', 'x', '--scopes', 'device_control,omit_mpass,device_control', '--minutes', '5']),
    {
      command: 'token',
      dataDir: 'x',
      scopes: ['device_control', 'omit_mpass'],
      minutes: 5,
    },
  );
  assert.is((parseCli(['token', '--scopes', 'settings']) as { minutes: number }).minutes, 60);
  // system_update is a grant, never a record scope, and the installer mints it on the box (docs/backup.md).
  assert.equal((parseCli(['token', '--scopes', 'system_update']) as { scopes: string[] }).scopes, ['system_update']);
  assert.throws(() => parseCli(['token']), isUsage);
  assert.throws(() => parseCli(['token', '--scopes', 'root']), isUsage);
  assert.throws(() => parseCli(['token', '--scopes', 'settings', '--minutes', '0']), isUsage);
  assert.throws(() => parseCli(['token', '--scopes', 'settings', '--minutes', '5256001']), isUsage);
});

test.run();
