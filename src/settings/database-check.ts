/**
 * The connectivity test of the `database` section (contract: "The database connection is tested
 * for connectivity as part of validation"): connect, `SELECT 1`, close. The answer is null or one
 * reason a person can act on; it never contains the password.
 */
import { createConnection, type Connection } from 'mysql2/promise';

/** Contract: "sqlport ... the value 0 is treated as 3306". */
export const DEFAULT_MYSQL_PORT = 3306;

export interface DatabaseTarget {
  sqluser: string;
  sqlpass: string;
  sqlhost: string;
  sqldatabase: string;
  sqlport: number;
}

export function resolveSqlPort(port: number): number {
  return port === 0 ? DEFAULT_MYSQL_PORT : port;
}

function describe(err: unknown, db: DatabaseTarget, where: string, timeoutMs: number): string {
  const code = (err as { code?: string } | null)?.code ?? 'UNKNOWN';
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot reach ${where}: connection refused`;
    case 'ETIMEDOUT':
    case 'PROTOCOL_SEQUENCE_TIMEOUT':
      return `cannot reach ${where}: timed out after ${timeoutMs} ms`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve host '${db.sqlhost}'`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot reach ${where}: no route to host`;
    case 'ER_ACCESS_DENIED_ERROR':
      return `cannot log in as '${db.sqluser}' on ${where}: Access denied`;
    case 'ER_BAD_DB_ERROR':
      return `database '${db.sqldatabase}' does not exist`;
    case 'ER_DBACCESS_DENIED_ERROR':
      // The server answers this also for a database that does not exist, to hide its existence.
      return `user '${db.sqluser}' has no access to database '${db.sqldatabase}' (or it does not exist)`;
    case 'ER_HOST_NOT_PRIVILEGED':
      return `${where} does not accept connections from this host`;
    case 'PROTOCOL_CONNECTION_LOST':
    case 'ECONNRESET':
      return `cannot connect to ${where}: the server closed the connection`;
    default:
      // Only the code: a driver message is not ours to vouch for.
      return `cannot connect to ${where}: ${code}`;
  }
}

/** Belt and braces: should any reason ever carry the password, it is masked (passwords of 4+ characters). */
function scrub(reason: string, password: string): string {
  return password.length >= 4 ? reason.split(password).join('********') : reason;
}

export async function checkDatabaseConnection(db: DatabaseTarget, timeoutMs = 3000): Promise<string | null> {
  const port = resolveSqlPort(db.sqlport);
  const where = `${db.sqlhost}:${port}`;
  let connection: Connection | undefined;
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const attempt = (async (): Promise<void> => {
    const opened = await createConnection({
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
    return scrub(describe(err, db, where, timeoutMs), db.sqlpass);
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
    connection.end().then(() => true, () => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1000))),
  ]);
  clearTimeout(timer);
  if (!ended) connection.destroy();
}
