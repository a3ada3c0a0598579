/**
 * The connection to the MySQL/MariaDB mirror (mysql2/promise), behind a small interface: every
 * query has a timeout, a broken connection reports itself once, and closing never hangs. TLS and
 * the allowed logins follow database.sql_tls_mode (settings/database-tls.ts).
 */
import { createConnection, type Connection } from 'mysql2/promise';
import { VigilError } from '../../core/errors.js';
import { closeQuietly, CONNECT_FAILED, resolveSqlPort, type DatabaseTarget } from '../../settings/database-check.js';
import { connectionSecurity, INSECURE_LOGIN_REASON, isInsecureLoginRefusal } from '../../settings/database-tls.js';

export interface RemoteDb {
  query(sql: string, values?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface RemoteDbOptions {
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
  /** Called once when the server or the network breaks the idle connection. */
  readonly onBroken: (err: Error) => void;
}

export function describeTarget(db: DatabaseTarget): string {
  return `${db.sqlhost}:${resolveSqlPort(db.sqlport)}`;
}

/**
 * The full reason, for the gateway log only: the driver's error code and message, or the server's
 * own message for server errors ("Access denied for user ..." names the user, not the password).
 */
export function describeRemoteError(err: unknown, password: string): string {
  const e = err as { code?: unknown; sqlMessage?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : null;
  const text =
    typeof e?.sqlMessage === 'string' ? e.sqlMessage : typeof e?.message === 'string' ? e.message : String(err);
  const reason = code && !text.includes(code) ? `${code}: ${text}` : text;
  return password.length >= 4 ? reason.split(password).join('********') : reason;
}

/**
 * A failed login as VigilError('DATABASE_UNREACHABLE'), its message fit for health (read over the
 * API): a MySQL server's own answer (it carries an errno and a SQL state) or Vigil's refusal of an
 * insecure login; anything else gets the one text of the connection test, so that health does not
 * tell a `settings` user what listens at an address (issue #28.4). The driver's error is the cause.
 */
export function loginFailure(err: unknown, password: string): VigilError {
  const e = err as { sqlState?: unknown; errno?: unknown } | null;
  const fromServer = typeof e?.sqlState === 'string' && typeof e.errno === 'number';
  const shown = isInsecureLoginRefusal(err)
    ? INSECURE_LOGIN_REASON
    : fromServer
      ? describeRemoteError(err, password)
      : CONNECT_FAILED;
  return new VigilError('DATABASE_UNREACHABLE', shown, [], { cause: err });
}

async function login(target: DatabaseTarget, options: RemoteDbOptions): Promise<Connection> {
  const security = await connectionSecurity(target, resolveSqlPort(target.sqlport));
  try {
    return await createConnection({
      ...security,
      host: target.sqlhost,
      port: resolveSqlPort(target.sqlport),
      user: target.sqluser,
      password: target.sqlpass,
      database: target.sqldatabase,
      connectTimeout: options.connectTimeoutMs,
      // Dates go out as UTC; the mirror's DATETIME(3) columns hold UTC (docs/mysql-sync.md).
      timezone: 'Z',
      charset: 'utf8mb4',
    });
  } catch (err) {
    throw loginFailure(err, target.sqlpass);
  }
}

export async function openRemoteDb(target: DatabaseTarget, options: RemoteDbOptions): Promise<RemoteDb> {
  const connection = await login(target, options);
  let broken = false;
  connection.on('error', (err: Error) => {
    // Without a listener an idle connection dropped by the server would crash the process.
    if (broken) return;
    broken = true;
    options.onBroken(err);
  });
  try {
    await connection.query({ sql: "SET time_zone = '+00:00'", timeout: options.queryTimeoutMs });
  } catch (err) {
    connection.destroy();
    throw err;
  }
  return {
    async query(sql, values) {
      const [rows] = await connection.query({ sql, timeout: options.queryTimeoutMs }, values);
      return rows;
    },
    close: () => closeQuietly(connection),
  };
}
