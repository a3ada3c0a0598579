/** Small key/value facts of the installation: instance id, tracker checkpoints, sync cursors. */
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';

/** The installation's UUID (made by the MySQL sync on first use; carried by backups, docs/backup.md). */
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
