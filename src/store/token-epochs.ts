/**
 * Token epochs per user id (docs/security.md "Token invalidation"), mirrored in memory: the
 * table is read once when the store opens and again by every settings save (the only place that
 * raises an epoch), so a token check never touches the disk and keeps working while the store is
 * closed or failing (GET /api/status must still answer then).
 */
import type { Database } from './database.js';

/**
 * Statements for SettingsRepo's transaction: raise the epoch of every stored user that is being
 * deleted (@ids: JSON array of the kept ids) or whose password hash changes (@id, @password_hash).
 * A user id never seen has no row, that is epoch 0.
 */
export const RAISE_EPOCH_OF_DELETED_USERS = `
  INSERT INTO user_token_epochs (user_id, epoch)
  SELECT id, 1 FROM users WHERE id NOT IN (SELECT value FROM json_each(@ids))
  ON CONFLICT (user_id) DO UPDATE SET epoch = epoch + 1`;
export const RAISE_EPOCH_ON_PASSWORD_CHANGE = `
  INSERT INTO user_token_epochs (user_id, epoch)
  SELECT id, 1 FROM users WHERE id = @id AND password_hash <> @password_hash
  ON CONFLICT (user_id) DO UPDATE SET epoch = epoch + 1`;

export type EpochRow = { user_id: number; epoch: number };

export function readEpochRows(db: Database): EpochRow[] {
  return db.prepare('SELECT user_id, epoch FROM user_token_epochs').all() as EpochRow[];
}

export class TokenEpochs {
  private epochs = new Map<number, number>();

  /** The user id's current epoch; 0 for an id whose password never changed and that was never deleted. */
  get(userId: number): number {
    return this.epochs.get(userId) ?? 0;
  }

  /** Called with the table's rows when the store opens and after each committed settings save. */
  replace(rows: readonly EpochRow[]): void {
    this.epochs = new Map(rows.map((r) => [r.user_id, r.epoch]));
  }
}
