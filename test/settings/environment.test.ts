/**
 * The outside checks: PEM files generated here (openssl CLI and node:crypto), serial devices
 * through the injected check and through a real socat pty pair.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultValidationEnv, isCharacterDevice } from '../../src/settings/environment.js';
import { waitFor } from '../helpers/net.js';
import { tempDir } from '../helpers/temp-dir.js';
import { accepted, errorsOf, output, testEnv } from './support.js';
import { tool } from '../helpers/system-tools.js';

const dir = tempDir('vigil-settings-env-');
const file = (name: string) => join(dir.path, name);
let socat: ChildProcess | undefined;

test.before(() => {
  execFileSync(
    tool('openssl'),
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      file('key.pem'),
      '-out',
      file('cert.pem'),
      '-subj',
      '/CN=vigil-test',
      '-days',
      '1',
    ],
    { stdio: 'ignore' },
  );
  const pair = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  writeFileSync(file('ed-public.pem'), pair.publicKey);
  writeFileSync(file('ed-private.pem'), pair.privateKey);
  const other = generateKeyPairSync('ed25519', {
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  writeFileSync(file('other-public.pem'), other.publicKey);
  const encrypted = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pass' },
  });
  writeFileSync(file('encrypted.pem'), encrypted.privateKey);
  writeFileSync(file('garbage.pem'), 'hello, this is not a key\n');
  writeFileSync(file('broken.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
  writeFileSync(file('broken-cert.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
  mkdirSync(file('a-directory'));
});

test.after(() => {
  socat?.kill('SIGTERM');
  dir.remove();
});

const pem = (privateKey: string, publicKey: string) =>
  errorsOf({ api: { private_key: file(privateKey), public_key: file(publicKey) } });

test('a readable private key with its certificate, or with its public key, is accepted', async () => {
  assert.equal(await pem('key.pem', 'cert.pem'), []);
  assert.equal(await pem('ed-private.pem', 'ed-public.pem'), []);
});

test('missing, garbage, directory and broken PEM files are refused with the reason', async () => {
  assert.equal(await pem('missing.pem', 'missing.pem'), [
    'api.private_key: file does not exist',
    'api.public_key: file does not exist',
  ]);
  assert.equal(await pem('garbage.pem', 'garbage.pem'), [
    'api.private_key: is not a PEM file',
    'api.public_key: is not a PEM file',
  ]);
  assert.equal(await pem('a-directory', 'a-directory'), [
    'api.private_key: is a directory, not a PEM file',
    'api.public_key: is a directory, not a PEM file',
  ]);
  assert.equal(await pem('broken.pem', 'broken-cert.pem'), [
    'api.private_key: is not a valid PEM private key',
    'api.public_key: is not a valid PEM certificate',
  ]);
});

test('an encrypted private key, a private key given as public key and a mismatched pair are refused', async () => {
  assert.equal(await pem('encrypted.pem', 'cert.pem'), [
    'api.private_key: is an encrypted private key (Vigil needs it without a passphrase)',
  ]);
  assert.equal(await pem('key.pem', 'key.pem'), ['api.public_key: must be a PEM certificate or public key']);
  assert.equal(await pem('ed-private.pem', 'other-public.pem'), [
    'api.public_key: does not match the private key in api.private_key',
  ]);
  assert.equal(await pem('ed-private.pem', 'cert.pem'), [
    'api.public_key: does not match the private key in api.private_key',
  ]);
});

test('key paths are checked when a patch names them, not on unrelated updates', async () => {
  const current = await accepted({ api: { private_key: file('key.pem'), public_key: file('cert.pem') } });
  assert.equal(await errorsOf({ general: { instance_name: 'x' } }, current), []);
  current.api.private_key = file('gone.pem');
  // A file damaged after it was accepted does not block an unrelated change (health reports it).
  assert.equal(await errorsOf({ general: { instance_name: 'x' } }, current), []);
  assert.equal(await errorsOf({ api: { private_key: file('also-gone.pem') } }, current), [
    'api.private_key: file does not exist',
  ]);
});

test('serial devices are checked through the injected function, for the lists the patch supplies', async () => {
  const env = testEnv({ devices: ['/dev/ttyUSB0'] });
  const patch = {
    receivers: {
      com_receivers: [{ id: 3, name: 'C', port_id: '/dev/ttyUSB0' }],
      modem_receivers: [{ id: 4, name: 'M', port_id: '/dev/ttyACM7' }],
    },
    outputs: [output(1, { type: 3, identificator: '/dev/ttyS9' }), output(2)],
  };
  assert.equal(await errorsOf(patch, undefined, env), [
    'outputs[0].identificator: is not an existing serial device',
    'receivers.modem_receivers[0].port_id: is not an existing serial device',
  ]);
  assert.equal(env.serialChecked.sort(), ['/dev/ttyACM7', '/dev/ttyS9', '/dev/ttyUSB0']);

  const stored = await accepted({ receivers: { com_receivers: [{ id: 3, name: 'C', port_id: '/dev/ttyUSB0' }] } });
  const later = testEnv({ devices: [] });
  assert.equal(await errorsOf({ tracker: { timeout_tolerance: 1 } }, stored, later), []);
  assert.equal(later.serialChecked, []);
});

test('a real pty pair passes the default serial check; a regular file and a missing path do not', async () => {
  socat = spawn(
    tool('socat'),
    ['-d', '-d', `pty,raw,echo=0,link=${file('ttyA')}`, `pty,raw,echo=0,link=${file('ttyB')}`],
    {
      stdio: 'ignore',
    },
  );
  await waitFor(() => existsSync(file('ttyA')) && existsSync(file('ttyB')), 5000);
  assert.ok(await isCharacterDevice(file('ttyA')));
  assert.not.ok(await isCharacterDevice(file('garbage.pem')));
  assert.not.ok(await isCharacterDevice(file('no-such-tty')));

  const env = defaultValidationEnv({ hash: async () => 'unused' });
  const patch = {
    receivers: { com_receivers: [{ id: 3, name: 'C', port_id: file('ttyA') }] },
    outputs: [output(1, { type: 3, identificator: file('ttyB') })],
  };
  assert.equal(await errorsOf(patch, undefined, env), []);
  assert.equal(
    await errorsOf(
      { receivers: { com_receivers: [{ id: 3, name: 'C', port_id: file('garbage.pem') }] } },
      undefined,
      env,
    ),
    ['receivers.com_receivers[0].port_id: is not an existing serial device'],
  );
});

test.run();
