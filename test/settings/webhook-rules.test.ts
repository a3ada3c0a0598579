/**
 * Webhook outputs (type 4, protocol "JSON") in the settings: URL rules, the secret, retry bounds and the CA
 * file, each refused with its field path; the secret masked in the public view and kept when the mask comes back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toPublicView } from '../../src/settings/public-view.js';
import { defaultWebhook } from '../../src/settings/schema-outputs.js';
import { makeTlsFiles } from '../helpers/tls-files.js';
import { tempDir } from '../helpers/temp-dir.js';
import { accepted, errorsOf, output } from './support.js';

const SECRET = 'webhook-secret-0123456789';

function webhook(extra: Record<string, unknown> = {}, block: Record<string, unknown> = {}): Record<string, unknown> {
  return output(1, {
    type: 4,
    protocol: 'JSON',
    identificator: 'https://hooks.example.net/vigil?token=t',
    webhook: { secret: SECRET, ...block },
    ...extra,
  });
}

test('a webhook output is accepted and stored with its defaults filled in', async () => {
  const next = await accepted({ outputs: [webhook()] });
  assert.equal(next.outputs[0]!.webhook, { ...defaultWebhook(), secret: SECRET });
  assert.equal(defaultWebhook(), {
    secret: '',
    timeout_ms: 10000,
    batch_size: 1,
    retries: 3,
    retry_min_ms: 1000,
    retry_max_ms: 30000,
    ca_file: '',
  });
  for (const identificator of [
    'http://127.0.0.1:8080/hook',
    'http://[::1]:9000/',
    'https://10.0.0.5/x',
    'https://[2001:db8::1]:8443/a',
  ]) {
    assert.equal(await errorsOf({ outputs: [webhook({ identificator })] }), [], identificator);
  }
});

test('a bad webhook URL is refused with its field path', async () => {
  const cases: [string, string][] = [
    ['hooks.example.net/vigil', 'must be an absolute https:// URL'],
    ['ftp://hooks.example.net/', 'must be an https:// URL'],
    [
      'http://hooks.example.net/',
      'must be https:// (plain http:// only to a loopback address such as 127.0.0.1 or [::1])',
    ],
    [
      'http://localhost:8080/',
      'must be https:// (plain http:// only to a loopback address such as 127.0.0.1 or [::1])',
    ],
    ['http://10.0.0.5/', 'must be https:// (plain http:// only to a loopback address such as 127.0.0.1 or [::1])'],
    ['https://user:pw@hooks.example.net/', 'must not carry a user name or password (use webhook.secret)'],
    ['https://hooks.example.net/#x', 'must not carry a #fragment'],
    [`https://hooks.example.net/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ];
  for (const [identificator, reason] of cases) {
    assert.equal(
      await errorsOf({ outputs: [webhook({ identificator })] }),
      [`outputs[0].identificator: ${reason}`],
      identificator,
    );
  }
});

test('type 4 and protocol "JSON" go together; the webhook block only on type 4', async () => {
  assert.equal(await errorsOf({ outputs: [webhook({ protocol: 'MLR2' })] }), [
    'outputs[0].protocol: must be "JSON" for a webhook output (type 4)',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { protocol: 'JSON' })] }), [
    'outputs[0].type: must be 4 (webhook) or 5 (TCP server) when protocol is "JSON"',
  ]);
  assert.equal(await errorsOf({ outputs: [output(1, { webhook: { secret: SECRET } })] }), [
    'outputs[0].webhook: only allowed when type is 4 (webhook)',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({ serial: {} })] }), [
    'outputs[0].serial: only allowed when type is 3 (serial COM)',
  ]);
});

test('secret, timeout, batch size and retry bounds are checked with their paths', async () => {
  assert.equal(await errorsOf({ outputs: [webhook({}, { secret: 'short' })] }), [
    'outputs[0].webhook.secret: must be 16 to 256 printable ASCII characters',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({ webhook: {} })] }), [
    'outputs[0].webhook.secret: must be 16 to 256 printable ASCII characters',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({}, { secret: `${SECRET}\u00e9` })] }), [
    'outputs[0].webhook.secret: must be 16 to 256 printable ASCII characters',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({}, { timeout_ms: 999, batch_size: 101, retries: 11 })] }), [
    'outputs[0].webhook.batch_size: must be between 1 and 100',
    'outputs[0].webhook.retries: must be between 0 and 10',
    'outputs[0].webhook.timeout_ms: must be between 1000 and 60000',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({}, { retry_min_ms: 5000, retry_max_ms: 2000 })] }), [
    'outputs[0].webhook.retry_max_ms: must not be less than retry_min_ms',
  ]);
  assert.equal(await errorsOf({ outputs: [webhook({}, { colour: 'red' })] }), [
    'outputs[0].webhook.colour: unknown field',
  ]);
});

test('the CA file must be an absolute path to PEM CA certificates, and only with https', async () => {
  const tls = makeTlsFiles();
  const dir = tempDir('vigil-webhook-ca-');
  try {
    const notPem = join(dir.path, 'not.pem');
    writeFileSync(notPem, 'hello');
    assert.equal(await errorsOf({ outputs: [webhook({}, { ca_file: tls.caCert })] }), []);
    assert.equal(await errorsOf({ outputs: [webhook({}, { ca_file: 'ca.pem' })] }), [
      'outputs[0].webhook.ca_file: must be an absolute path',
    ]);
    assert.equal(await errorsOf({ outputs: [webhook({}, { ca_file: notPem })] }), [
      'outputs[0].webhook.ca_file: is not a PEM file',
    ]);
    assert.equal(await errorsOf({ outputs: [webhook({}, { ca_file: join(dir.path, 'missing.pem') })] }), [
      'outputs[0].webhook.ca_file: file does not exist',
    ]);
    assert.equal(await errorsOf({ outputs: [webhook({}, { ca_file: tls.serverKey })] }), [
      'outputs[0].webhook.ca_file: must be a PEM file of CA certificates',
    ]);
    assert.equal(
      await errorsOf({ outputs: [webhook({ identificator: 'http://127.0.0.1:9/' }, { ca_file: tls.caCert })] }),
      ['outputs[0].webhook.ca_file: only allowed with an https:// URL'],
    );
  } finally {
    tls.remove();
    dir.remove();
  }
});

test('the secret is masked in the public view and kept when the mask is sent back', async () => {
  const current = await accepted({ outputs: [webhook()] });
  const view = toPublicView(current) as unknown as { outputs: { webhook: { secret: string } }[] };
  assert.is(view.outputs[0]!.webhook.secret, '********');
  assert.not.ok(JSON.stringify(view).includes(SECRET));
  const roundTrip = await accepted(view, current);
  assert.equal(roundTrip, current);
  assert.equal(await errorsOf({ outputs: [webhook({ id: 2 }, { secret: '********' })] }, current), [
    'outputs[0].webhook.secret: "********" keeps a stored secret, but the item with this id has none',
    'outputs[0].webhook.secret: must be 16 to 256 printable ASCII characters',
  ]);
});

test.run();
