import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/core/clock.js';
import { HealthRegistry } from '../../src/core/health.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { rejects } from '../helpers/rejects.js';

test('device keys: enrol stores 32 bytes and closes the window; reset forgets the key and opens one; nothing else reads them', async () => {
  const dir = tempDir();
  const clock = new ManualClock(1_000);
  const store = new Store(join(dir.path, 'v.db'), silentLogger, new HealthRegistry(), { clock });
  await store.start();
  try {
    assert.is(store.deviceKeys.get('00ab12'), null);
    await store.write.deviceKeys.reset('00ab12', 9_000);
    assert.equal(store.deviceKeys.get('00AB12'), { uid: '00AB12', key: null, enrolUntil: 9_000, updatedAt: 1_000 });
    clock.advance(500);
    await store.write.deviceKeys.enrol('00AB12', Buffer.alloc(32, 3));
    assert.equal(store.deviceKeys.get('00AB12'), {
      uid: '00AB12',
      key: Buffer.alloc(32, 3),
      enrolUntil: null,
      updatedAt: 1_500,
    });
    await rejects(store.write.deviceKeys.enrol('00AB12', Buffer.alloc(16)), 'a key is 32 bytes (CHECK)');
  } finally {
    await store.stop();
    dir.remove();
  }
});

test.run();
