/**
 * The connectivity test of the `database` section (contract: "The database connection is tested
 * for connectivity as part of validation"): connect, `SELECT 1`, close. The answer is null or one
 * reason a person can act on; it never contains the password.
 *
 * It must not work as a port scanner for a `settings` user (issue #28.4): everything that goes
 * wrong before a MySQL server answers the login (refused, timed out, unknown host, no route, TLS
 * refused or failed, something that is not MySQL) gets the ONE text CONNECT_FAILED; the cause is
 * logged on the box only. Answers of a MySQL server to the login are named (docs/settings.md).
 */
import { createConnection, type Connection } from 'mysql2/promise';
import { describeError, isVigilError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { connectionSecurity, INSECURE_LOGIN_REASON, isInsecureLoginRefusal, type TlsTarget } from './database-tls.js';

/** Contract: "sqlport ... the value 0 is treated as 3306". */
export const DEFAULT_MYSQL_PORT = 3306;

/** The one answer for every failure to reach a MySQL server (its cause goes to the log only). */
export const CONNECT_FAILED =
  'could not connect to a MySQL server at the configured address (the cause is in the gateway log)';

export interface DatabaseTarget extends TlsTarget {
  sqluser: string;
  sqlpass: string;
  sqlhost: string;
  sqldatabase: string;
  sqlport: number;
}

export function resolveSqlPort(port: number): number {
  return port === 0 ? DEFAULT_MYSQL_PORT : port;
}

/**
 * The reason shown to the caller: a MySQL server's answer to the login, Vigil's own refusals (the
 * CA file, a login that would send the password without TLS), or CONNECT_FAILED for the rest.
 */
export function describeConnectFailure(err: unknown, db: DatabaseTarget): string {
  if (isInsecureLoginRefusal(err)) return INSECURE_LOGIN_REASON;
  if (isVigilError(err, 'DATABASE_UNREACHABLE')) return err.message;
  const code = (err as { code?: string } | null)?.code ?? 'UNKNOWN';
  const where = `${db.sqlhost}:${resolveSqlPort(db.sqlport)}`;
  switch (code) {
    case 'ER_ACCESS_DENIED_ERROR':
      return `cannot log in as '${db.sqluser}' on ${where}: Access denied`;
    case 'ER_BAD_DB_ERROR':
      return `database '${db.sqldatabase}' does not exist`;
    case 'ER_DBACCESS_DENIED_ERROR':
      // The server answers this also for a database that does not exist, to hide its existence.
      return `user '${db.sqluser}' has no access to database '${db.sqldatabase}' (or it does not exist)`;
    case 'ER_HOST_NOT_PRIVILEGED':
      return `${where} does not accept connections from this host`;
    default:
      return CONNECT_FAILED;
  }
}

/** Belt and braces: should any reason ever carry the password, it is masked (passwords of 4+ characters). */
function scrub(reason: string, password: string): string {
  return password.length >= 4 ? reason.split(password).join('********') : reason;
}

export async function checkDatabaseConnection(
  db: DatabaseTarget,
  timeoutMs = 3000,
  logger?: Logger,
): Promise<string | null> {
  const port = resolveSqlPort(db.sqlport);
  let connection: Connection | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const attempt = (async (): Promise<void> => {
    const opened = await createConnection({
      ...(await connectionSecurity(db, port)),
      host: db.sqlhost,
      port,
      user: db.sqluser,
      password: db.sqlpass,
      database: db.sqldatabase,
      connectTimeout: timeoutMs,
    });
    // The overall deadline may have passed while the handshake finished: close what was opened.
    if (timedOut) {
      opened.destroy();
      return;
    }
    connection = opened;
    await opened.query({ sql: 'SELECT 1', timeout: timeoutMs });
  })();
  // connectTimeout bounds the handshake; this bounds the whole test whatever the driver does.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(Object.assign(new Error('deadline'), { code: 'ETIMEDOUT' }));
    }, timeoutMs + 500);
  });
  try {
    await Promise.race([attempt, deadline]);
    return null;
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    logger?.warn('database connection test failed', {
      target: `${db.sqlhost}:${port}`,
      code: typeof code === 'string' ? code : null,
      error: scrub(describeError(err), db.sqlpass),
    });
    return scrub(describeConnectFailure(err, db), db.sqlpass);
  } finally {
    clearTimeout(timer);
    attempt.catch(() => undefined);
    if (connection) await closeQuietly(connection);
  }
}

/** A polite COM_QUIT, bounded to one second; then the socket is simply destroyed. */
export async function closeQuietly(connection: Connection): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    connection.end().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1000))),
  ]);
  clearTimeout(timer);
  if (!ended) connection.destroy();
}
