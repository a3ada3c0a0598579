/**
 * A backup or restore made by the running gateway (API, page) must not stall its main thread: the store
 * copy and the integrity check run in a worker thread and scrypt in the thread pool (store-task.ts,
 * backup-format.ts), so receivers keep answering and the watchdog keeps being fed. A header asking scrypt
 * for more than Vigil ever writes is refused as damaged before any key is derived.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBackup } from '../../src/backup/create-backup.js';
import { BACKUP_MAGIC, decodePreamble } from '../../src/backup/backup-format.js';
import { stageRestore } from '../../src/backup/stage-restore.js';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/temp-dir.js';
import { alarmEvent } from '../api/alarm-event.js';

const PASSPHRASE = 'correct horse battery staple';

/** A store with about 40 MB of journal: its copy takes far longer than one turn of the event loop. */
async function bigStore(dir: string): Promise<void> {
  const store = new Store(join(dir, 'vigil.db'), silentLogger);
  await store.start();
  const raw = randomBytes(2048);
  for (let batch = 0; batch < 20; batch++) {
    await store.write.events.append(
      Array.from({ length: 1000 }, (_, i) => alarmEvent({ receivedAt: 1, raw: raw.subarray(0, 1024 + (i % 1024)) })),
    );
  }
  await store.stop();
}

/** Counts the event loop's turns until `done` settles. */
async function turnsDuring(done: Promise<unknown>): Promise<number> {
  let turns = 0;
  let settled = false;
  void done.finally(() => (settled = true)).catch(() => undefined);
  while (!settled) {
    await new Promise((resolve) => setImmediate(resolve));
    turns += 1;
  }
  return turns;
}

test('the event loop keeps turning while a backup copies the store and derives its key, and while a restore checks it', async () => {
  const dir = tempDir('vigil-offthread-');
  try {
    const box = join(dir.path, 'box');
    mkdirSync(box);
    await bigStore(box);
    const chunks: Buffer[] = [];
    let firstChunk!: () => void;
    const started = new Promise<void>((resolve) => (firstChunk = resolve));
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        firstChunk();
        done();
      },
    });
    const backup = writeBackup(
      { dataDir: box, passphrase: PASSPHRASE, journal: false, appVersion: 'test', now: 0 },
      sink,
    );
    // Everything before the first byte is the snapshot and scrypt: on the main thread it would be 0 turns.
    const turns = await turnsDuring(started);
    await backup;
    assert.ok(turns > 50, `the event loop turned ${turns} times before the first byte`);

    const file = join(dir.path, 'box.vbk');
    writeFileSync(file, Buffer.concat(chunks));
    const target = join(dir.path, 'target');
    mkdirSync(target);
    const restoreTurns = await turnsDuring(
      stageRestore({ dataDir: target, file, passphrase: PASSPHRASE, newIdentity: true }),
    );
    assert.ok(restoreTurns > 50, `the event loop turned ${restoreTurns} times during the restore`);
    assert.equal(readdirSync(target), ['restore-pending']);
  } finally {
    dir.remove();
  }
});

test('a header asking scrypt for gigabytes is refused as damaged at once, nothing staged', async () => {
  const dir = tempDir('vigil-kdf-');
  try {
    const chunks: Buffer[] = [];
    const box = join(dir.path, 'box');
    mkdirSync(box);
    const store = new Store(join(box, 'vigil.db'), silentLogger);
    await store.start();
    await store.stop();
    await writeBackup(
      { dataDir: box, passphrase: PASSPHRASE, journal: false, appVersion: 'test', now: 0 },
      new Writable({ write: (c: Buffer, _e, d) => (chunks.push(c), d()) }),
    );
    const bytes = Buffer.concat(chunks);
    const { header, preamble } = decodePreamble(bytes);
    // n = 2^20, r = 32: 4 GiB of scrypt memory, hours of CPU on a Pi.
    const json = Buffer.from(JSON.stringify({ ...header, kdf: { ...header.kdf, n: 1_048_576, r: 32, p: 16 } }));
    const length = Buffer.alloc(4);
    length.writeUInt32BE(json.length);
    const file = join(dir.path, 'hostile.vbk');
    writeFileSync(file, Buffer.concat([BACKUP_MAGIC, length, json, bytes.subarray(preamble.length)]));
    const target = join(dir.path, 'target');
    mkdirSync(target);
    const began = Date.now();
    try {
      await stageRestore({ dataDir: target, file, passphrase: PASSPHRASE, newIdentity: false });
      assert.unreachable('refused');
    } catch (err) {
      assert.ok(isVigilError(err, 'BAD_BACKUP'));
      assert.is((err as Error).message, 'the backup file is damaged (header fields)');
    }
    assert.ok(Date.now() - began < 1000, 'refused before any key is derived');
    assert.equal(readdirSync(target), []);
  } finally {
    dir.remove();
  }
});

test.run();
