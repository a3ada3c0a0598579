import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VigilError, describeError, isVigilError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

const ERRORS_MODULE = new URL('../../src/core/errors.js', import.meta.url).href;
// The probe file lives in a temp dir, where a bare 'uvu' would not resolve.
const UVU_MODULE = import.meta.resolve('uvu');

test('a VigilError carries its code and context, and is recognised by code', () => {
  const err = new VigilError('FRAME_INVALID', 'sequence must be 0..9999', ['10000']);
  assert.is(err.code, 'FRAME_INVALID');
  assert.equal(err.context, ['10000']);
  assert.ok(isVigilError(err));
  assert.ok(isVigilError(err, 'FRAME_INVALID'));
  assert.not.ok(isVigilError(err, 'NOT_FOUND'));
  assert.is(describeError(err), 'sequence must be 0..9999');
});

test('a test failing with a VigilError is reported with its message, and the suite goes on', async () => {
  // uvu formats a failure's `details` as diff text; an error with an array there stopped the whole
  // suite without a word (the failure's message and every later test lost).
  const dir = tempDir('vigil-errors-');
  const file = join(dir.path, 'fails.test.mjs');
  writeFileSync(
    file,
    [
      `import { test } from ${JSON.stringify(UVU_MODULE)};`,
      `import { VigilError } from ${JSON.stringify(ERRORS_MODULE)};`,
      `test('throws', () => { throw new VigilError('STORE_FAILURE', 'the journal went away', ['events']); });`,
      `test('passes after it', () => {});`,
      `test.run();`,
    ].join('\n'),
  );
  try {
    const output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [file],
        { env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, timeout: 20_000 },
        (_err, stdout, stderr) => resolve(stdout + stderr),
      );
    });
    assert.match(output, 'the journal went away');
    assert.match(output, /Passed:\s+1/);
  } finally {
    dir.remove();
  }
});

test.run();
