/**
 * Makes a backup of a data dir (docs/backup.md): a consistent snapshot of the store (store-snapshot.ts, in
 * a worker thread: store-task.ts), without the journal unless asked, and the box's TLS
 * key pair, encrypted under the technician's passphrase into one file.
 */
import { createCipheriv } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { checkPassphrase, encodePreamble, newBackupKeys, type BackupHeader, TAG_BYTES } from './backup-format.js';
import { END_OF_ENTRIES, ENTRY_NAMES, entryHead, type EntryName } from './backup-entries.js';
import { snapshotOffThread } from './store-task.js';
import { STORE_FILE } from '../store/store-path.js';

export interface BackupOptions {
  readonly dataDir: string;
  readonly passphrase: string;
  /** Include the event journal (events and their ids); off: only what rebuilds the box. */
  readonly journal: boolean;
  readonly appVersion: string;
  readonly now: number;
}

async function* plaintext(files: ReadonlyArray<{ name: EntryName; path: string }>): AsyncGenerator<Buffer> {
  for (const file of files) {
    yield entryHead(file.name, statSync(file.path).size);
    for await (const chunk of createReadStream(file.path)) yield chunk as Buffer;
  }
  yield END_OF_ENTRIES;
}

/** Writes the backup to `sink`; returns its header. The snapshot lives in a temp dir inside the data dir. */
export async function writeBackup(options: BackupOptions, sink: Writable): Promise<BackupHeader> {
  let work: string | null = null;
  try {
    checkPassphrase(options.passphrase);
    work = mkdtempSync(join(options.dataDir, '.backup-'));
    // Off the main thread: a gateway's receivers and watchdog keep running while the store is copied.
    const snap = await snapshotOffThread({ dataDir: options.dataDir, dir: work, journal: options.journal });
    const { cipherKey, header } = await newBackupKeys(options.passphrase, {
      ...snap.facts,
      app_version: options.appVersion,
      created_at: new Date(options.now).toISOString(),
    });
    const files: Array<{ name: EntryName; path: string }> = [{ name: STORE_FILE, path: snap.path }];
    for (const name of ENTRY_NAMES.slice(1)) {
      const path = join(options.dataDir, name);
      if (existsSync(path)) files.push({ name, path });
    }
    const preamble = encodePreamble(header);
    const cipher = createCipheriv('aes-256-gcm', cipherKey, Buffer.from(header.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    cipher.setAAD(preamble);
    async function* file(): AsyncGenerator<Buffer> {
      yield preamble;
      for await (const chunk of Readable.from(plaintext(files)).pipe(cipher)) yield chunk as Buffer;
      yield cipher.getAuthTag();
    }
    await pipeline(Readable.from(file()), sink);
    return header;
  } catch (err) {
    // The sink gets no half file: a stream to a file or an HTTP response is ended with the error.
    sink.destroy();
    throw err;
  } finally {
    if (work !== null) rmSync(work, { recursive: true, force: true });
  }
}
