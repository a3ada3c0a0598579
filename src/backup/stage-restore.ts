/**
 * Checks a backup file completely and stages it in `<data>/restore-pending/` (docs/backup.md "Restoring").
 * Nothing of the running box changes here: the gateway applies a staged restore at its next start, before
 * it opens the store (apply-restore.ts). All or nothing: a wrong passphrase, a damaged, truncated or
 * altered file, or a store this Vigil cannot read leaves no staged restore behind.
 * Run as root over a data dir of another user (first boot, `vigil restore` as root), the staging is done
 * by a child process as that user (stage-as-owner.ts): root never opens, writes or chowns a path there.
 */
import { createDecipheriv, randomUUID } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { VigilError } from '../core/errors.js';
import { openDatabase } from '../store/database.js';
import { latestVersion, readableFrom } from '../store/migrations.js';
import { VIGIL_APPLICATION_ID } from '../store/schema-v1.js';
import { decodePreamble, openBackupKeys, TAG_BYTES, type BackupHeader } from './backup-format.js';
import { EntrySplitter } from './backup-entries.js';
import { INSTANCE_ID_KEY, MetaRepo } from '../store/meta-repo.js';
import { checkStoreOffThread } from './store-task.js';
import { stageAsOwner } from './stage-as-owner.js';
import { checkSchema, checkSettings } from './restored-content.js';
import { storePath } from '../store/store-path.js';

export const PENDING_DIR = 'restore-pending';
export const PENDING_HEADER = 'backup-header.json';
/** Files of a backup being received (an API or page upload, a root-started staging): removed at every start. */
export const UPLOAD_PREFIX = '.restore-upload-';

export interface StageOptions {
  readonly dataDir: string;
  readonly file: string;
  readonly passphrase: string;
  /** Restore as a new installation (a clone, not a replacement): a new instance id. */
  readonly newIdentity: boolean;
}

function damaged(what: string): VigilError {
  return new VigilError('BAD_BACKUP', `the backup file is damaged or altered (${what})`);
}

function readHead(file: string, size: number): Buffer {
  const head = Buffer.alloc(Math.min(size, 70 * 1024));
  const fd = openSync(file, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  return head;
}

/** Writes each entry to its file under `dir`; only the names EntrySplitter allows exist. */
function entrySink(dir: string): Writable {
  const splitter = new EntrySplitter();
  let fd: number | null = null;
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      try {
        for (const piece of splitter.push(chunk)) {
          if (piece.kind === 'start') {
            const path = join(dir, piece.name);
            mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
            fd = openSync(path, 'wx', 0o600);
          } else if (piece.kind === 'data' && fd !== null) writeSync(fd, piece.bytes);
          else if (piece.kind === 'end' && fd !== null) {
            closeSync(fd);
            fd = null;
          }
        }
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    final(done) {
      try {
        splitter.finish();
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    destroy(err, done) {
      if (fd !== null) closeSync(fd);
      done(err);
    },
  });
}

/**
 * The staged store is a readable Vigil store matching its header, with the schema and settings this Vigil
 * makes (restored-content.ts; blocks its thread: see store-task.ts).
 */
export function checkStore(path: string, header: BackupHeader, newIdentity: boolean): void {
  let db;
  try {
    db = openDatabase(path, { readonly: !newIdentity });
  } catch {
    throw damaged('its store cannot be opened');
  }
  try {
    if (Number(db.pragma('application_id', { simple: true })) !== VIGIL_APPLICATION_ID)
      throw damaged('its store is not a Vigil store');
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw damaged(`its store fails the integrity check: ${String(integrity)}`);
    if (Number(db.pragma('user_version', { simple: true })) !== header.schema_version)
      throw damaged('its store does not match its header');
    if (header.readable_from !== undefined && readableFrom(db) !== header.readable_from)
      throw damaged('its store does not match its header');
    const meta = new MetaRepo(db);
    if ((meta.get(INSTANCE_ID_KEY) ?? '') !== header.instance_id)
      throw damaged('its instance id does not match its header');
    checkSchema(db, header.schema_version);
    checkSettings(db);
    if (newIdentity) {
      meta.set(INSTANCE_ID_KEY, randomUUID());
      db.pragma('journal_mode = DELETE');
    }
  } finally {
    db.close();
  }
}

/** Verifies the whole file and stages it; returns its header. */
export async function stageRestore(options: StageOptions): Promise<BackupHeader> {
  const owner = statSync(options.dataDir);
  if (process.getuid?.() === 0 && owner.uid !== 0) {
    const { dataDir, passphrase, newIdentity } = options;
    return stageAsOwner(options.file, { dataDir, passphrase, newIdentity }, owner);
  }
  return stageHere(options);
}

async function stageHere(options: StageOptions): Promise<BackupHeader> {
  let size: number;
  try {
    size = statSync(options.file).size;
  } catch {
    throw new VigilError('BAD_BACKUP', `cannot read the backup file ${options.file}`);
  }
  const { header, preamble } = decodePreamble(readHead(options.file, size));
  const key = await openBackupKeys(options.passphrase, header);
  const supported = latestVersion();
  // A newer store whose migrations were all additive is read as after a rollback (docs/store.md).
  if ((header.readable_from ?? header.schema_version) > supported) {
    throw new VigilError(
      'BAD_BACKUP',
      `the backup was made by a newer Vigil (${header.app_version}, store version ${header.schema_version}); this one reads store versions up to ${supported}`,
    );
  }
  if (size < preamble.length + TAG_BYTES) throw damaged('truncated');
  const tag = Buffer.alloc(TAG_BYTES);
  const fd = openSync(options.file, 'r');
  try {
    readSync(fd, tag, 0, TAG_BYTES, size - TAG_BYTES);
  } finally {
    closeSync(fd);
  }
  const partial = join(options.dataDir, `.${PENDING_DIR}-${process.pid}-${Date.now()}`);
  mkdirSync(partial, { mode: 0o700 });
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(header.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(preamble);
    decipher.setAuthTag(tag);
    const ciphertext = createReadStream(options.file, { start: preamble.length, end: size - TAG_BYTES - 1 });
    try {
      // final() checks the tag: a changed or cut byte anywhere fails the whole restore here.
      await pipeline(ciphertext, decipher, entrySink(partial));
    } catch (err) {
      if (err instanceof VigilError) throw err;
      throw damaged('authentication failed: truncated, corrupted or altered');
    }
    await checkStoreOffThread(storePath(partial), header, options.newIdentity);
    writeFileSync(join(partial, PENDING_HEADER), `${JSON.stringify(header)}\n`, { mode: 0o600, flag: 'wx' });
    const pending = join(options.dataDir, PENDING_DIR);
    rmSync(pending, { recursive: true, force: true });
    renameSync(partial, pending);
    return header;
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}
