/**
 * Privileged scopes (device_control, omit_mpass, restart_services) an administrator granted
 * to a user. The contract leaves open how they are assigned (management API §Authentication
 * 5); they live beside the settings document, not in it, and cascade away with the user.
 */
import { VigilError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard, storeError } from './sql.js';
import type { UserGrant } from './types.js';

interface GrantRow {
  user_id: number;
  scopes: string;
  granted_at: number;
  granted_by: string;
}

export class GrantsRepo {
  private readonly clock: Clock;
  private readonly sql: StatementCache;

  constructor(db: Database, clock: Clock) {
    this.clock = clock;
    this.sql = new StatementCache(db);
  }

  /** The user's granted scopes; [] when none. */
  get(userId: number): string[] {
    return guard('read grants', () => {
      const row = this.sql.get('SELECT scopes FROM user_grants WHERE user_id = ?').get(userId) as
        | { scopes: string }
        | undefined;
      return row ? (JSON.parse(row.scopes) as string[]) : [];
    });
  }

  /** Replaces the user's grants (duplicates dropped); an empty list clears them. NOT_FOUND for an unknown user. */
  set(userId: number, scopes: readonly string[], grantedBy: string): void {
    const unique = [...new Set(scopes)];
    if (unique.length === 0) {
      this.clear(userId);
      return;
    }
    try {
      this.sql
        .get(
          `INSERT INTO user_grants (user_id, scopes, granted_at, granted_by) VALUES (?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET
             scopes = excluded.scopes, granted_at = excluded.granted_at, granted_by = excluded.granted_by`,
        )
        .run(userId, JSON.stringify(unique), this.clock.now(), grantedBy);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new VigilError('NOT_FOUND', `no user with id ${userId}`, [], { cause: err });
      }
      throw storeError(err, 'save grants');
    }
  }

  clear(userId: number): void {
    guard('clear grants', () => this.sql.get('DELETE FROM user_grants WHERE user_id = ?').run(userId));
  }

  all(): UserGrant[] {
    return guard('list grants', () =>
      (this.sql.get('SELECT * FROM user_grants ORDER BY user_id').all() as GrantRow[]).map((row) => ({
        userId: row.user_id,
        scopes: JSON.parse(row.scopes) as string[],
        grantedAt: row.granted_at,
        grantedBy: row.granted_by,
      })),
    );
  }
}
