/**
 * The store part of a backup (docs/backup.md "What is inside"): a consistent copy made with `VACUUM INTO`
 * (a read: the writer thread keeps committing meanwhile), its journal emptied unless kept. Its time
 * grows with the store, seconds to minutes on a Pi, so it runs in a worker thread (store-task.ts): the
 * receivers keep answering and the watchdog keeps being fed meanwhile.
 */
import { openDatabase } from '../store/database.js';
import { INSTANCE_ID_KEY, MetaRepo } from '../store/meta-repo.js';
import { readableFrom } from '../store/migrations.js';
import type { BackupHeader } from './backup-format.js';
import { storePath } from '../store/store-path.js';

export type SnapshotFacts = Pick<
  BackupHeader,
  'schema_version' | 'readable_from' | 'instance_id' | 'instance_name' | 'journal'
>;

export interface Snapshot {
  readonly path: string;
  readonly facts: SnapshotFacts;
}

export interface SnapshotRequest {
  readonly dataDir: string;
  /** An empty directory the copy is written to. */
  readonly dir: string;
  readonly journal: boolean;
}

/** A consistent copy of the store in `dir`, with the journal emptied unless kept (blocks its thread). */
export function takeSnapshot({ dataDir, dir, journal }: SnapshotRequest): Snapshot {
  const path = storePath(dir);
  const source = openDatabase(storePath(dataDir), { readonly: true });
  try {
    source.prepare('VACUUM INTO ?').run(path);
  } finally {
    source.close();
  }
  const copy = openDatabase(path);
  try {
    if (!journal) {
      // The high-water trigger keeps the newest id: restored outputs and new events continue after it.
      copy.exec('DELETE FROM events');
      copy.exec('VACUUM');
    }
    const general = copy.prepare("SELECT value FROM settings WHERE section = 'general'").get() as
      | { value: string }
      | undefined;
    const instanceName = general
      ? String((JSON.parse(general.value) as { instance_name?: unknown }).instance_name ?? '')
      : '';
    return {
      path,
      facts: {
        schema_version: Number(copy.pragma('user_version', { simple: true })),
        readable_from: readableFrom(copy),
        instance_id: new MetaRepo(copy).get(INSTANCE_ID_KEY) ?? '',
        instance_name: instanceName,
        journal,
      },
    };
  } finally {
    copy.pragma('journal_mode = DELETE');
    copy.close();
  }
}
