/**
 * Hostile values in PUT /api/settings (issue #7 defects 2 and 3): PEM paths that are not regular
 * files or are huge, and bodies nested far deeper than any settings field.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../helpers/temp-dir.js';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';
import { tool } from '../helpers/system-tools.js';

let h: Harness;
let admin: string;
const dir = tempDir('vigil-hostile-');
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
});
test.after.each(async () => {
  await h.close();
});
test.after(() => dir.remove());

/** docs/settings.md: PEM files above 64 KiB are refused. */
const MAX_PEM_BYTES = 64 * 1024;
const put = (body: unknown) => call(h, 'PUT', '/api/settings', { token: admin, body });

test('a character device as private_key is refused at once without reading it (no memory growth)', async () => {
  const rssBefore = process.memoryUsage().rss;
  const started = Date.now();
  await expectResponse(await put({ api: { private_key: '/dev/zero' } }), 400, 'api.private_key: is not a regular file');
  assert.ok(Date.now() - started < 1000, 'answered within a second');
  assert.ok(process.memoryUsage().rss - rssBefore < 32 * 1024 * 1024, 'RSS grew by less than 32 MiB');
  await expectResponse(
    await put({ api: { public_key: '/dev/urandom' } }),
    400,
    'api.public_key: is not a regular file',
  );
});

test('a FIFO as private_key is refused at once and later settings changes still work', async () => {
  const fifo = join(dir.path, 'key.fifo');
  execFileSync(tool('mkfifo'), [fifo]);
  const started = Date.now();
  await expectResponse(await put({ api: { private_key: fifo } }), 400, 'api.private_key: is not a regular file');
  assert.ok(Date.now() - started < 1000, 'answered within a second');
  await expectResponse(await put({ general: { instance_name: 'after-fifo' } }), 200, { success: true });
  assert.is(h.settings.current().general.instance_name, 'after-fifo');
});

test('a regular file larger than the PEM bound is refused without being parsed', async () => {
  const big = join(dir.path, 'big.pem');
  writeFileSync(big, `-----BEGIN PRIVATE KEY-----\n${'A'.repeat(MAX_PEM_BYTES)}\n-----END PRIVATE KEY-----\n`);
  await expectResponse(
    await put({ api: { private_key: big } }),
    400,
    `api.private_key: is larger than ${MAX_PEM_BYTES} bytes, not a PEM file`,
  );
  assert.is(h.settings.current().api.private_key, '');
});

test('a value nested 10,000 levels deep is a 400 naming the field path, not a 500, and logs no error', async () => {
  const deep = `{"general":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`;
  const res = await call(h, 'PUT', '/api/settings', { token: admin, raw: deep });
  await expectResponse(res, 400, `general.x${'[0]'.repeat(9)}: nested more than 10 levels deep`);
  const objects = `{"receivers":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
  await expectResponse(
    await call(h, 'PUT', '/api/settings', { token: admin, raw: objects }),
    400,
    `receivers${'.a'.repeat(10)}: nested more than 10 levels deep`,
  );
  assert.equal(
    h.logs.filter((l) => / ERROR /.test(l)),
    [],
  );
  // The deepest real field still works.
  const users = h.settings
    .current()
    .users.map(({ password_hash: _h, ...u }) =>
      u.id === 2 ? { ...u, visible_receivers: { all: false, custom: [1, 2] } } : u,
    );
  await expectResponse(await put({ users }), 200, { success: true });
});

test.run();
