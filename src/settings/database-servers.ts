/**
 * Several servers of one database (docs/settings.md §database, docs/mysql-sync.md §Failover):
 * `sqlhost`/`sqlport` stay the first server, as the contract describes them, and
 * `database.sql_servers` lists the others (e.g. the other nodes of a Galera cluster) in the order
 * they are tried. Each server is reached with the same user, password, database and TLS settings;
 * with `verify` each certificate must name its own host.
 */
import type { Logger } from '../core/logger.js';
import { checkDatabaseConnection, resolveSqlPort, type DatabaseTarget } from './database-check.js';

export interface SqlServer {
  readonly host: string;
  readonly port: number;
}

export interface MultiServerTarget extends DatabaseTarget {
  readonly sql_servers?: readonly SqlServer[];
}

/** One target per server, sqlhost:sqlport first. */
export function databaseServers(target: MultiServerTarget): DatabaseTarget[] {
  const { sql_servers: more = [], ...first } = target;
  return [first, ...more.map((s) => ({ ...first, sqlhost: s.host, sqlport: s.port }))];
}

/** "host:port" with 0 resolved to 3306; the identity used to compare servers. */
export function serverKey(host: string, port: number): string {
  return `${host.trim().toLowerCase()}:${resolveSqlPort(port)}`;
}

/**
 * The connectivity test on save, over every server: passes as soon as one server accepts the
 * login (a cluster with a node down for maintenance must still be configurable); when none does,
 * the answer is the first server's reason (the others are in the gateway log).
 */
export async function checkDatabaseServers(
  target: MultiServerTarget,
  timeoutMs?: number,
  logger?: Logger,
): Promise<string | null> {
  let first: string | null = null;
  for (const server of databaseServers(target)) {
    const reason = await checkDatabaseConnection(server, timeoutMs, logger);
    if (reason === null) return null;
    first ??= reason;
  }
  return first;
}
