/**
 * What a restore may bring (docs/backup.md "Restoring", docs/security.md "Backups"): a backup is a file
 * anyone with its passphrase can craft, so integrity is not enough. Settings the next start would refuse
 * (a box that exits at every start) and a schema Vigil does not make (a trigger that drops one panel's
 * events as they are ACKed) are refused with nothing staged. A restore of the box's own backup ends every
 * token of the data it replaces, a logged-out one and a current one alike; another box's backup keeps
 * its secret (its integrations keep working).
 */
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeBackup } from '../../src/backup/create-backup.js';
import { PENDING_DIR, stageRestore } from '../../src/backup/stage-restore.js';
import { isVigilError } from '../../src/core/errors.js';
import { PASSWORD_FILE } from '../../src/init/first-start.js';
import { openDatabase } from '../../src/store/database.js';
import { storePath } from '../../src/store/store-path.js';
import { loginToken, startGateway } from '../helpers/gateway.js';
import { tempDir } from '../helpers/temp-dir.js';

const PASSPHRASE = 'correct horse battery staple';

/** A data dir made by a real gateway (started once, stopped), changed by `craft` while stopped, then backed up. */
async function craftedBackup(dir: string, name: string, craft: (db: ReturnType<typeof openDatabase>) => void) {
  const box = join(dir, name);
  const { gateway } = await startGateway(box);
  await gateway.stop();
  const db = openDatabase(storePath(box));
  try {
    craft(db);
  } finally {
    db.close();
  }
  const file = join(dir, `${name}.vbk`);
  await writeBackup(
    { dataDir: box, passphrase: PASSPHRASE, journal: false, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26) },
    createWriteStream(file),
  );
  return file;
}

async function refusalOf(dataDir: string, file: string): Promise<string> {
  mkdirSync(dataDir, { recursive: true });
  try {
    await stageRestore({ dataDir, file, passphrase: PASSPHRASE, newIdentity: false });
  } catch (err) {
    assert.ok(isVigilError(err, 'BAD_BACKUP'), String(err));
    assert.not.ok(existsSync(join(dataDir, PENDING_DIR)), 'nothing staged');
    return (err as Error).message;
  }
  throw new Error('the crafted backup was staged');
}

test('a backup with settings the next start would refuse is refused, nothing staged', async () => {
  const dir = tempDir();
  try {
    const file = await craftedBackup(dir.path, 'bad-settings', (db) => {
      // A known field with a value no start accepts (an unknown one is left out at start: a newer Vigil's).
      db.prepare("UPDATE settings SET value = json_set(value, '$.api_port', 'x') WHERE section = 'api'").run();
    });
    const message = await refusalOf(join(dir.path, 'target'), file);
    assert.match(message, /settings would not start a gateway: api\.api_port/);
  } finally {
    dir.remove();
  }
});

test('a backup whose store has a trigger Vigil does not make is refused, nothing staged', async () => {
  const dir = tempDir();
  try {
    const file = await craftedBackup(dir.path, 'trigger', (db) => {
      db.exec(
        "CREATE TRIGGER drop_003000 AFTER INSERT ON events WHEN NEW.account = '003000' BEGIN DELETE FROM events WHERE id = NEW.id; END",
      );
    });
    assert.match(await refusalOf(join(dir.path, 'target'), file), /a trigger this Vigil does not make: drop_003000/);
    const view = await craftedBackup(dir.path, 'view', (db) => db.exec('CREATE VIEW v AS SELECT 1'));
    assert.match(await refusalOf(join(dir.path, 'target2'), view), /a view this Vigil does not make: v/);
  } finally {
    dir.remove();
  }
});

test("a restore of the box's own backup ends every token of the data it replaces", async () => {
  const dir = tempDir();
  try {
    const box = join(dir.path, 'box');
    let first = await startGateway(box);
    const [login, password] = readFileSync(join(box, PASSWORD_FILE), 'utf8').trim().split('\n') as [string, string];
    const t1 = await loginToken(first.base, login, password);
    const file = join(dir.path, 'box.vbk');
    await writeBackup(
      { dataDir: box, passphrase: PASSPHRASE, journal: false, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26) },
      createWriteStream(file),
    );
    const logout = await fetch(`${first.base}/api/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t1}` },
    });
    assert.is(logout.status, 200);
    const t2 = await loginToken(first.base, login, password);
    await stageRestore({ dataDir: box, file, passphrase: PASSPHRASE, newIdentity: false });
    await first.gateway.stop();
    first = await startGateway(box);
    try {
      for (const [name, token] of [
        ['the logged-out token', t1],
        ['the current token', t2],
      ] as const) {
        const res = await fetch(`${first.base}/api/status`, { headers: { authorization: `Bearer ${token}` } });
        assert.is(res.status, 401, name);
      }
      // The backed-up accounts themselves still log in.
      await loginToken(first.base, login, password);
    } finally {
      await first.gateway.stop();
    }
  } finally {
    dir.remove();
  }
});

test("a restore of another box's backup keeps that box's secret", async () => {
  const dir = tempDir();
  try {
    const other = join(dir.path, 'other');
    const { gateway } = await startGateway(other);
    const secret = gateway.settings.current().api.api_jwt_secret;
    await gateway.stop();
    const file = join(dir.path, 'other.vbk');
    await writeBackup(
      { dataDir: other, passphrase: PASSPHRASE, journal: false, appVersion: '0.1.0', now: Date.UTC(2026, 10, 26) },
      createWriteStream(file),
    );
    const box = join(dir.path, 'box');
    const running = await startGateway(box);
    await stageRestore({ dataDir: box, file, passphrase: PASSPHRASE, newIdentity: false });
    await running.gateway.stop();
    const restored = await startGateway(box);
    try {
      assert.is(restored.gateway.settings.current().api.api_jwt_secret, secret);
    } finally {
      await restored.gateway.stop();
    }
  } finally {
    dir.remove();
  }
});

test.run();
