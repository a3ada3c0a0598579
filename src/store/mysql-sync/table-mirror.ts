/**
 * Replication of a small mutable table (objects, OID overrides) by comparison: SQLite has no
 * change log for them, and a gateway holds a few thousand rows at most, so each scan reads the
 * whole table, upserts the rows whose content differs from what was last written, and deletes
 * the mirror's rows that SQLite no longer has (a lost object removed by retention).
 *
 * What was last written is remembered in memory only. After a (re)connect the mirror's keys are
 * read back with unknown content, so the first scan rewrites every row once (idempotent upserts)
 * and deletes whatever disappeared while the sync was away: nothing needs persisting to resume.
 */
import type { RemoteDb } from './remote-db.js';

export interface MirroredTable<T> {
  readonly name: string;
  readonly key: (item: T) => string;
  readonly row: (item: T) => unknown[];
  readonly upsertSql: string;
  /** Selects the key columns of this installation's mirrored rows (`... WHERE installation = ?`). */
  readonly remoteKeysSql: string;
  readonly remoteKey: (row: Record<string, unknown>) => string;
  /** `DELETE ... WHERE installation = ? AND <key> IN (?)`. */
  readonly deleteSql: string;
  /** The values of the leading `?` of remoteKeysSql and deleteSql: this installation's id. */
  readonly scope: readonly unknown[];
  /** The key as the `IN (?)` list item: a value, or an array for a composite key. */
  readonly deleteParam: (key: string) => unknown;
}

export interface MirrorResult {
  readonly upserted: number;
  readonly deleted: number;
}

export class TableMirror<T> {
  private readonly table: MirroredTable<T>;
  private readonly batchSize: number;
  /** key -> JSON of the row last written; null = present in the mirror, content unknown. */
  private known = new Map<string, string | null>();

  constructor(table: MirroredTable<T>, batchSize: number) {
    this.table = table;
    this.batchSize = batchSize;
  }

  /** After a (re)connect: learn which rows the mirror holds. */
  async reset(db: RemoteDb): Promise<void> {
    const rows = (await db.query(this.table.remoteKeysSql, [...this.table.scope])) as Array<Record<string, unknown>>;
    this.known = new Map(rows.map((r) => [this.table.remoteKey(r), null]));
  }

  async sync(db: RemoteDb, items: readonly T[]): Promise<MirrorResult> {
    const seen = new Set<string>();
    const changed: Array<{ key: string; json: string; values: unknown[] }> = [];
    for (const item of items) {
      const key = this.table.key(item);
      seen.add(key);
      const values = this.table.row(item);
      const json = JSON.stringify(values);
      if (this.known.get(key) !== json) changed.push({ key, json, values });
    }
    for (let i = 0; i < changed.length; i += this.batchSize) {
      const chunk = changed.slice(i, i + this.batchSize);
      await db.query(this.table.upsertSql, [chunk.map((c) => c.values)]);
      // Remembered only once the mirror has them: a failed batch is written again next scan.
      for (const c of chunk) this.known.set(c.key, c.json);
    }
    const gone = [...this.known.keys()].filter((key) => !seen.has(key));
    for (let i = 0; i < gone.length; i += this.batchSize) {
      const chunk = gone.slice(i, i + this.batchSize);
      await db.query(this.table.deleteSql, [...this.table.scope, chunk.map((key) => this.table.deleteParam(key))]);
      for (const key of chunk) this.known.delete(key);
    }
    return { upserted: changed.length, deleted: gone.length };
  }
}
