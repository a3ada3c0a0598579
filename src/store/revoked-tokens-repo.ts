/**
 * Tokens ended by logout (docs/security.md "Logout"): a token id is kept until the token's own
 * expiry, then pruned. The table stays small without trusting anyone's restraint: a user who keeps
 * more than MAX_REVOKED_PER_USER live revoked tokens (a login/logout loop with a long token_time)
 * gets their token epoch raised instead, which ends every token of theirs at once and lets their
 * rows go. The in-memory mirror (RevokedTokens) answers every token check without the disk.
 */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';
import { readEpochRows, type EpochRow } from './token-epochs.js';

export const MAX_REVOKED_PER_USER = 200;

export type RevokedRow = { jti: string; expires_at: number };

export interface RevokeResult {
  /** The live revoked tokens after this one (for the mirror). */
  readonly rows: RevokedRow[];
  /** Set when the user's epoch was raised (for the epochs mirror). */
  readonly epochs: EpochRow[] | null;
}

export class RevokedTokensRepo {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly sql: StatementCache;

  constructor(db: Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.sql = new StatementCache(db);
  }

  /** The revoked tokens that have not expired yet. */
  live(): RevokedRow[] {
    return guard(
      'read revoked tokens',
      () =>
        this.sql
          .get('SELECT jti, expires_at FROM revoked_tokens WHERE expires_at > ?')
          .all(this.clock.now()) as RevokedRow[],
    );
  }

  /** Records `jti` as revoked until `expiresAt` (ms); prunes what expired; one transaction. */
  revoke(jti: string, userId: number | null, expiresAt: number): RevokeResult {
    return guard('revoke token', () =>
      this.db
        .transaction((): RevokeResult => {
          const now = this.clock.now();
          this.sql.get('DELETE FROM revoked_tokens WHERE expires_at <= ?').run(now);
          if (expiresAt > now) {
            this.sql
              .get('INSERT OR IGNORE INTO revoked_tokens (jti, user_id, expires_at) VALUES (?, ?, ?)')
              .run(jti, userId, expiresAt);
          }
          let epochs: EpochRow[] | null = null;
          if (userId !== null) {
            const { n } = this.sql.get('SELECT count(*) AS n FROM revoked_tokens WHERE user_id = ?').get(userId) as {
              n: number;
            };
            if (n > MAX_REVOKED_PER_USER) {
              this.sql
                .get(
                  'INSERT INTO user_token_epochs (user_id, epoch) VALUES (?, 1) ON CONFLICT (user_id) DO UPDATE SET epoch = epoch + 1',
                )
                .run(userId);
              this.sql.get('DELETE FROM revoked_tokens WHERE user_id = ?').run(userId);
              epochs = readEpochRows(this.db);
            }
          }
          return { rows: this.live(), epochs };
        })
        .immediate(),
    );
  }
}

/** The mirror the token checks read. */
export class RevokedTokens {
  private entries = new Map<string, number>();

  has(jti: string): boolean {
    return this.entries.has(jti);
  }

  size(): number {
    return this.entries.size;
  }

  replace(rows: readonly RevokedRow[]): void {
    this.entries = new Map(rows.map((r) => [r.jti, r.expires_at]));
  }

  /** Used when the store cannot record it: revoked for this run at least. */
  add(jti: string, expiresAt: number): void {
    this.entries.set(jti, expiresAt);
  }
}
