import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadKeyring, saveKeyring } from '../../src/sim/sim-keyring.js';
import { tempDir } from '../helpers/temp-dir.js';

test('--device-keys: a missing file is an empty keyring; saved keys load back; the file is 0600', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'keys.json');
    assert.equal(await loadKeyring(path), new Map());
    await saveKeyring(path, new Map([['00ABCDEF01', Buffer.alloc(32, 0xab)]]));
    assert.equal(JSON.parse(await readFile(path, 'utf8')), { '00ABCDEF01': 'AB'.repeat(32) });
    assert.is((await stat(path)).mode & 0o777, 0o600);
    assert.equal(await loadKeyring(path), new Map([['00ABCDEF01', Buffer.alloc(32, 0xab)]]));
  } finally {
    dir.remove();
  }
});

test('--device-keys: a file that is not an object of UID -> 64 hex digits is refused with the entry named', async () => {
  const dir = tempDir();
  try {
    const path = join(dir.path, 'keys.json');
    for (const [text, expected] of [
      ['[]', 'must be an object'],
      ['{"00AB": "00"}', 'entry "00AB"'],
      ['nope', 'not JSON'],
    ] as const) {
      await writeFile(path, text);
      try {
        await loadKeyring(path);
        assert.unreachable(text);
      } catch (err) {
        assert.match((err as Error).message, expected);
      }
    }
  } finally {
    dir.remove();
  }
});

test.run();
