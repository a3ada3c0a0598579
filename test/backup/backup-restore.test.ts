/**
 * A backup taken from a running gateway rebuilds the box on an empty data dir (docs/backup.md): settings
 * with their secrets, users, overrides, TLS pair, output cursors; the journal only when asked. Wrong
 * passphrases and damaged files are refused with their reason and stage nothing. A backup of a newer
 * store restores when this Vigil knows its floor (the rule a rollback opens it by), and is refused when not.
 */
import { existsSync, readFileSync, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBackup } from '../../src/backup/create-backup.js';
import { PENDING_DIR, stageRestore } from '../../src/backup/stage-restore.js';
import { isVigilError } from '../../src/core/errors.js';
import { silentLogger } from '../../src/core/logger.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { openDatabase } from '../../src/store/database.js';
import { MetaRepo } from '../../src/store/meta-repo.js';
import { latestVersion, READABLE_FROM_KEY } from '../../src/store/migrations.js';
import { storePath } from '../../src/store/store-path.js';
import { Store } from '../../src/store/store.js';
import { postLogin, startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSPHRASE = 'correct horse battery staple';

async function backupOf(dataDir: string, file: string, journal: boolean): Promise<void> {
  await writeBackup(
    { dataDir, passphrase: PASSPHRASE, journal, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26, 15) },
    createWriteStream(file),
  );
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (isVigilError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

test('a backup from a running box restores onto an empty data dir: same settings, users, overrides, TLS pair', async () => {
  const dir = tempDir();
  try {
    const oldBox = join(dir.path, 'old');
    const { gateway } = await startGateway(oldBox);
    const [login, password] = readFileSync(join(oldBox, PASSWORD_FILE), 'utf8').trim().split('\n') as [string, string];
    let secret: string;
    let backedUpIds: number[];
    try {
      assert.ok((await gateway.settings.update({ general: { instance_name: 'depot-north' } })).ok);
      await gateway.store.write.overrides.set({
        matchKind: 'oid',
        matchValue: '1234',
        relatedOid: null,
        overrideOid: '9002',
      });
      secret = gateway.settings.current().api.api_jwt_secret;
      backedUpIds = gateway.store.events.query({ receiverIds: null, limit: 100 }).items.map((e) => e.id);
      // Taken while the gateway runs: the snapshot is a read beside the writer thread.
      await backupOf(oldBox, join(dir.path, 'box.vbk'), false);
    } finally {
      await gateway.stop();
    }
    const bytes = readFileSync(join(dir.path, 'box.vbk'));
    assert.is(bytes.subarray(0, 8).toString('latin1'), 'VGLBKP01');
    assert.not.ok(bytes.includes(Buffer.from(secret)), 'the JWT secret is not readable in the file');

    const newBox = join(dir.path, 'new');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(newBox);
    const header = await stageRestore({
      dataDir: newBox,
      file: join(dir.path, 'box.vbk'),
      passphrase: PASSPHRASE,
      newIdentity: false,
    });
    assert.is(header.instance_name, 'depot-north');
    assert.is(header.journal, false);
    const restored = await startGateway(newBox);
    try {
      assert.not.ok(existsSync(join(newBox, PENDING_DIR)), 'applied and gone');
      assert.is(restored.gateway.settings.current().general.instance_name, 'depot-north');
      assert.is(restored.gateway.settings.current().api.api_jwt_secret, secret);
      assert.is((await postLogin(restored.base, login, password)).status, 200);
      assert.is(restored.gateway.store.overrides.list().length, 1);
      assert.is(
        readFileSync(join(newBox, 'tls', 'cert.pem'), 'utf8'),
        readFileSync(join(oldBox, 'tls', 'cert.pem'), 'utf8'),
      );
    } finally {
      await restored.gateway.stop();
    }
    // Without the journal the restored box holds only its own new events; ids continue after the old ones.
    const oldStore = new Store(join(oldBox, 'vigil.db'), silentLogger);
    const newStore = new Store(join(newBox, 'vigil.db'), silentLogger);
    await oldStore.start();
    await newStore.start();
    try {
      const newEvents = newStore.events.query({ receiverIds: null, limit: 100 }).items;
      assert.ok(
        backedUpIds!.length > 0 && newEvents.every((e) => e.id > Math.max(...backedUpIds!)),
        'new ids follow the old ones',
      );
      assert.ok(
        newEvents.some((e) => (e.text ?? '').includes('restored from the backup of depot-north')),
        newEvents.map((e) => e.text).join(' | '),
      );
    } finally {
      await oldStore.stop();
      await newStore.stop();
    }
  } finally {
    dir.remove();
  }
});

test('with the journal, every event comes back', async () => {
  const dir = tempDir();
  try {
    const oldBox = join(dir.path, 'old');
    const { gateway } = await startGateway(oldBox);
    await gateway.stop();
    await backupOf(oldBox, join(dir.path, 'box.vbk'), true);
    const newBox = join(dir.path, 'new');
    (await import('node:fs')).mkdirSync(newBox);
    await stageRestore({
      dataDir: newBox,
      file: join(dir.path, 'box.vbk'),
      passphrase: PASSPHRASE,
      newIdentity: false,
    });
    const restored = await startGateway(newBox);
    await restored.gateway.stop();
    const store = new Store(join(newBox, 'vigil.db'), silentLogger);
    await store.start();
    try {
      const texts = store.events.query({ receiverIds: null, limit: 100 }).items.map((e) => e.text);
      assert.ok(texts.filter((t) => (t ?? '').startsWith('Gateway started')).length === 2, texts.join(' | '));
    } finally {
      await store.stop();
    }
  } finally {
    dir.remove();
  }
});

test('a wrong passphrase, a changed byte, a cut file, a short passphrase: refused with the reason, nothing staged', async () => {
  const dir = tempDir();
  try {
    const oldBox = join(dir.path, 'old');
    const { gateway } = await startGateway(oldBox);
    await gateway.stop();
    const file = join(dir.path, 'box.vbk');
    await backupOf(oldBox, file, false);
    const newBox = join(dir.path, 'new');
    (await import('node:fs')).mkdirSync(newBox);
    const stage = (path: string, passphrase = PASSPHRASE) =>
      stageRestore({ dataDir: newBox, file: path, passphrase, newIdentity: false });

    assert.equal(await refusal(stage(file, 'not the passphrase')), {
      code: 'BAD_PASSPHRASE',
      message: 'wrong passphrase for this backup',
    });
    const bytes = readFileSync(file);
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)]! ^= 0x01;
    writeFileSync(join(dir.path, 'flipped.vbk'), flipped);
    assert.equal(await refusal(stage(join(dir.path, 'flipped.vbk'))), {
      code: 'BAD_BACKUP',
      message: 'the backup file is damaged or altered (authentication failed: truncated, corrupted or altered)',
    });
    writeFileSync(join(dir.path, 'cut.vbk'), bytes.subarray(0, bytes.length - 100));
    assert.is((await refusal(stage(join(dir.path, 'cut.vbk')))).code, 'BAD_BACKUP');
    writeFileSync(join(dir.path, 'other.vbk'), 'label: dos\n');
    assert.equal(await refusal(stage(join(dir.path, 'other.vbk'))), {
      code: 'BAD_BACKUP',
      message: 'not a Vigil backup file',
    });
    assert.is(
      (
        await refusal(
          writeBackup(
            { dataDir: oldBox, passphrase: 'short', journal: false, appVersion: '0', now: 0 },
            new PassThrough(),
          ),
        )
      ).code,
      'BAD_PASSPHRASE',
    );
    const { readdirSync } = await import('node:fs');
    assert.equal(readdirSync(newBox), [], 'nothing staged, nothing left behind');
  } finally {
    dir.remove();
  }
});

/** What a newer Vigil leaves in a store: one more version and a table this one does not know. */
function makeNewer(dataDir: string, floor: number | null): void {
  const db = openDatabase(storePath(dataDir));
  try {
    db.exec('CREATE TABLE newer_probe (id INTEGER PRIMARY KEY)');
    db.pragma(`user_version = ${latestVersion() + 1}`);
    if (floor !== null) new MetaRepo(db).set(READABLE_FROM_KEY, String(floor));
  } finally {
    db.close();
  }
}

test('a newer store restores when its floor is known here (additive migrations), and is refused when not', async () => {
  const dir = tempDir();
  try {
    const { mkdirSync, readdirSync } = await import('node:fs');
    const oldBox = join(dir.path, 'old');
    const { gateway } = await startGateway(oldBox);
    const [login, password] = readFileSync(join(oldBox, PASSWORD_FILE), 'utf8').trim().split('\n') as [string, string];
    await gateway.stop();
    makeNewer(oldBox, null); // an additive migration keeps the floor
    await backupOf(oldBox, join(dir.path, 'additive.vbk'), false);
    const newBox = join(dir.path, 'new');
    mkdirSync(newBox);
    const header = await stageRestore({
      dataDir: newBox,
      file: join(dir.path, 'additive.vbk'),
      passphrase: PASSPHRASE,
      newIdentity: false,
    });
    assert.is(header.schema_version, latestVersion() + 1);
    assert.ok((header.readable_from ?? Number.POSITIVE_INFINITY) <= latestVersion(), 'the floor is in the header');
    const restored = await startGateway(newBox);
    try {
      assert.is((await postLogin(restored.base, login, password)).status, 200, 'the box runs on the newer store');
    } finally {
      await restored.gateway.stop();
    }

    const db = openDatabase(storePath(oldBox));
    db.exec('DROP TABLE newer_probe');
    db.close();
    makeNewer(oldBox, latestVersion() + 1); // a migration older code cannot use
    await backupOf(oldBox, join(dir.path, 'breaking.vbk'), false);
    const other = join(dir.path, 'other');
    mkdirSync(other);
    const refused = await refusal(
      stageRestore({
        dataDir: other,
        file: join(dir.path, 'breaking.vbk'),
        passphrase: PASSPHRASE,
        newIdentity: false,
      }),
    );
    assert.is(refused.code, 'BAD_BACKUP');
    assert.match(
      refused.message,
      new RegExp(
        `newer Vigil .*store version ${latestVersion() + 1}\\); this one reads store versions up to ${latestVersion()}`,
      ),
    );
    assert.equal(readdirSync(other), [], 'nothing staged');
  } finally {
    dir.remove();
  }
});

test.run();
