/** Small key/value facts of the installation: instance id, tracker checkpoints, sync cursors. */
import { randomUUID } from 'node:crypto';
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';

/** The installation's UUID (made on first use by the MySQL sync or the update channel; carried by backups, docs/backup.md). */
export const INSTANCE_ID_KEY = 'instance_id';

export class MetaRepo {
  private readonly sql: StatementCache;

  constructor(db: Database) {
    this.sql = new StatementCache(db);
  }

  get(key: string): string | null {
    return guard('read meta', () => {
      const row = this.sql.get('SELECT value FROM meta WHERE key = ?').get(key) as { value: string | null } | undefined;
      return row?.value ?? null;
    });
  }

  set(key: string, value: string): void {
    guard('write meta', () =>
      this.sql
        .get('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(key, value),
    );
  }

  delete(key: string): void {
    guard('delete meta', () => this.sql.get('DELETE FROM meta WHERE key = ?').run(key));
  }
}

/** The store's slice that holds the instance id: its read, and its write through the one writer. */
export interface InstanceIdStore {
  readonly meta: { get(key: string): string | null };
  readonly write: { readonly meta: { set(key: string, value: string): Promise<void> } };
}

const making = new WeakMap<InstanceIdStore, Promise<string>>();

/**
 * The installation's instance id, a random UUID made and stored on first use (the MySQL mirror's
 * `installations`, the update channel's waves). Callers at once share one making, so a store never gets two.
 */
export function ensureInstanceId(store: InstanceIdStore): Promise<string> {
  const stored = store.meta.get(INSTANCE_ID_KEY);
  if (stored) return Promise.resolve(stored);
  let pending = making.get(store);
  if (!pending) {
    const id = randomUUID();
    pending = store.write.meta.set(INSTANCE_ID_KEY, id).then(() => id);
    making.set(store, pending);
    pending.then(
      () => making.delete(store),
      () => making.delete(store),
    );
  }
  return pending;
}
