/**
 * The settings document: one JSON row per section, except `users`, which live in the users
 * table so that privileged grants (user_grants) can reference them and cascade with them.
 */
import type { Clock } from '../core/clock.js';
import type { Database } from './database.js';
import { StatementCache, guard } from './sql.js';
import {
  RAISE_EPOCH_OF_DELETED_USERS,
  RAISE_EPOCH_ON_PASSWORD_CHANGE,
  readEpochRows,
  type EpochRow,
} from './token-epochs.js';
import type { StoredSettings, StoredUser } from './types.js';

/** meta key written by every save: "nothing stored yet" means this key is absent. */
const SAVED_AT_KEY = 'settings_saved_at';

/** A login no real user can have (control character), used while logins are being swapped. */
const PLACEHOLDER_LOGIN_PREFIX = '\u0001renaming:';

interface SectionRow {
  section: string;
  value: string;
}

interface UserRow {
  id: number;
  login: string;
  password_hash: string;
  token_time: number;
  scopes: string;
  visible_receivers: string;
}

export class SettingsRepo {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly sql: StatementCache;

  constructor(db: Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
    this.sql = new StatementCache(db);
  }

  /**
   * The stored document, or null when settings were never saved. Sections come back in the
   * order they were last saved; `users` always comes last (the contract's order), in the
   * order of the saved array.
   */
  load(): StoredSettings | null {
    return guard('load settings', () => {
      if (this.sql.get('SELECT 1 FROM meta WHERE key = ?').get(SAVED_AT_KEY) === undefined) return null;
      const sections = this.sql
        .get('SELECT section, value FROM settings ORDER BY position, section')
        .all() as SectionRow[];
      const document: Record<string, unknown> = {};
      for (const row of sections) document[row.section] = JSON.parse(row.value) as unknown;
      const users = this.sql.get('SELECT * FROM users ORDER BY position, id').all() as UserRow[];
      document.users = users.map(toStoredUser);
      return document as StoredSettings;
    });
  }

  /**
   * Replaces the whole document in ONE transaction: either all of it is stored or none. Returns
   * the token epochs as committed (token-epochs.ts), for the Store's in-memory mirror.
   */
  save(settings: StoredSettings): EpochRow[] {
    const now = this.clock.now();
    const apply = this.db.transaction((): EpochRow[] => {
      this.saveSections(settings, now);
      this.saveUsers(settings.users);
      this.sql
        .get('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
        .run(SAVED_AT_KEY, String(now));
      return readEpochRows(this.db);
    });
    return guard('save settings', () => apply.immediate());
  }

  private saveSections(settings: StoredSettings, now: number): void {
    const kept: string[] = [];
    let position = 0;
    for (const [section, value] of Object.entries(settings)) {
      if (section === 'users' || value === undefined) continue;
      kept.push(section);
      // updated_at moves only when the section's content changed.
      this.sql
        .get(
          `INSERT INTO settings (section, value, position, updated_at) VALUES (@section, @value, @position, @now)
           ON CONFLICT (section) DO UPDATE SET
             position = excluded.position,
             updated_at = CASE WHEN value = excluded.value THEN updated_at ELSE excluded.updated_at END,
             value = excluded.value`,
        )
        .run({ section, value: JSON.stringify(value), position: position++, now });
    }
    this.sql
      .get('DELETE FROM settings WHERE section NOT IN (SELECT value FROM json_each(?))')
      .run(JSON.stringify(kept));
  }

  /**
   * Insert/update/delete by id, never delete-and-reinsert: a kept user's grants survive, a
   * removed user's grants cascade away (user_grants ON DELETE CASCADE). Deleting a user or
   * changing a password raises the user id's token epoch in the same transaction (token-epochs.ts).
   */
  private saveUsers(users: readonly StoredUser[]): void {
    const ids = JSON.stringify(users.map((u) => u.id));
    this.sql.get(RAISE_EPOCH_OF_DELETED_USERS).run({ ids });
    for (const user of users)
      this.sql.get(RAISE_EPOCH_ON_PASSWORD_CHANGE).run({ id: user.id, password_hash: user.password_hash });
    this.sql.get('DELETE FROM users WHERE id NOT IN (SELECT value FROM json_each(?))').run(ids);
    // Logins are UNIQUE and checked per row: park the kept users' logins first so two users
    // may swap logins in one save.
    this.sql
      .get(`UPDATE users SET login = '${PLACEHOLDER_LOGIN_PREFIX}' || id WHERE id IN (SELECT value FROM json_each(?))`)
      .run(ids);
    users.forEach((user, position) => {
      this.sql
        .get(
          `INSERT INTO users (id, login, password_hash, token_time, scopes, visible_receivers, position)
           VALUES (@id, @login, @password_hash, @token_time, @scopes, @visible_receivers, @position)
           ON CONFLICT (id) DO UPDATE SET
             login = excluded.login, password_hash = excluded.password_hash, token_time = excluded.token_time,
             scopes = excluded.scopes, visible_receivers = excluded.visible_receivers, position = excluded.position`,
        )
        .run({
          id: user.id,
          login: user.login,
          password_hash: user.password_hash,
          token_time: user.token_time,
          scopes: JSON.stringify(user.scopes),
          visible_receivers: JSON.stringify({
            all: user.visible_receivers.all,
            custom: user.visible_receivers.custom,
          }),
          position,
        });
    });
  }
}

function toStoredUser(row: UserRow): StoredUser {
  return {
    id: row.id,
    login: row.login,
    password_hash: row.password_hash,
    token_time: row.token_time,
    scopes: JSON.parse(row.scopes) as string[],
    visible_receivers: JSON.parse(row.visible_receivers) as StoredUser['visible_receivers'],
  };
}
