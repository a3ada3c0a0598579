/**
 * The stored MySQL password goes only where it was entered for (issue #28.4, docs/settings.md
 * §database). The public view shows `sqlpass` as "********", and sending the mask back (or leaving
 * `sqlpass` out) keeps the stored password. Without this rule a `settings` user who never saw the
 * password could point `sqlhost` at their own server and collect it from the connection test or
 * the sync. So an update that changes where or how the password travels must carry the password
 * itself:
 * - `sqlhost`, `sqlport` (0 and 3306 are the same port), `sqluser`: another server or account;
 * - `sql_servers` (a server added, moved or reordered): another server;
 * - `sql_tls_ca_file`: another trust anchor lets another server pass as this one;
 * - `sql_tls_mode` lowered (verify > required > disabled): a weaker channel to the same server.
 * `sqldatabase`, the retention ages and raising `sql_tls_mode` keep the password where it was.
 */
import { resolveSqlPort } from './database-check.js';
import { serverKey } from './database-servers.js';
import { line } from './issues.js';
import { SQL_TLS_MODES, type DatabaseSettings, type SettingsUpdate } from './schema.js';

function tlsRank(mode: DatabaseSettings['sql_tls_mode']): number {
  return SQL_TLS_MODES.indexOf(mode);
}

/** The fields of the change that move the password to another peer or a weaker channel. */
export function destinationChanges(before: DatabaseSettings, after: DatabaseSettings): string[] {
  const changed: string[] = [];
  if (after.sqlhost !== before.sqlhost) changed.push('sqlhost');
  if (resolveSqlPort(after.sqlport) !== resolveSqlPort(before.sqlport)) changed.push('sqlport');
  const servers = (db: DatabaseSettings): string => db.sql_servers.map((s) => serverKey(s.host, s.port)).join(',');
  if (servers(after) !== servers(before)) changed.push('sql_servers');
  if (after.sqluser !== before.sqluser) changed.push('sqluser');
  if (after.sql_tls_ca_file !== before.sql_tls_ca_file) changed.push('sql_tls_ca_file');
  if (tlsRank(after.sql_tls_mode) < tlsRank(before.sql_tls_mode)) changed.push('sql_tls_mode');
  return changed;
}

/**
 * Runs on the unmasked, schema-checked patch (a mask is already gone from it: `sqlpass` present
 * means a password was typed) and the merged section. One line on `database.sqlpass`, or none.
 */
export function checkPasswordReentry(
  current: DatabaseSettings,
  patch: SettingsUpdate,
  next: DatabaseSettings,
): string[] {
  if (patch.database === undefined || patch.database.sqlpass !== undefined) return [];
  if (current.sqlpass === '') return []; // nothing stored, nothing to carry elsewhere
  const changed = destinationChanges(current, next);
  if (changed.length === 0) return [];
  return [
    line(
      'database.sqlpass',
      `must be entered again when ${changed.join(', ')} ${changed.length === 1 ? 'changes' : 'change'} ` +
        '(the stored password is kept only for the same server, user and TLS settings)',
    ),
  ];
}
