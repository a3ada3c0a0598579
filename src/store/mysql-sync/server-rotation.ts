/**
 * Which server the sync talks to, and how long it waits before the next attempt
 * (docs/mysql-sync.md §Failover). Servers are tried in the configured order: a failure moves to
 * the next one; the backoff doubles once per full round over the list (so a second node is tried
 * after minBackoffMs, not after a minute), up to maxBackoffMs, and returns to the minimum after a
 * successful cycle. The server in use is kept while it works: no fail-back to the first server,
 * which would move the writes around a healthy cluster for nothing.
 */
import type { DatabaseTarget } from '../../settings/database-check.js';
import { databaseServers, type MultiServerTarget } from '../../settings/database-servers.js';
import { describeTarget } from './remote-db.js';

export class ServerRotation {
  private readonly servers: readonly DatabaseTarget[];
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private index = 0;
  private failures = 0;

  constructor(target: MultiServerTarget, minBackoffMs: number, maxBackoffMs: number) {
    this.servers = databaseServers(target);
    this.minBackoffMs = minBackoffMs;
    this.maxBackoffMs = maxBackoffMs;
  }

  get current(): DatabaseTarget {
    return this.servers[this.index]!;
  }

  get currentName(): string {
    return describeTarget(this.current);
  }

  get count(): number {
    return this.servers.length;
  }

  /** Failures in a row since the last successful cycle. */
  get failureCount(): number {
    return this.failures;
  }

  succeeded(): void {
    this.failures = 0;
  }

  /** Moves to the next server; returns the wait before trying it. needsOperator waits the most. */
  failed(needsOperator: boolean): number {
    this.failures++;
    this.index = (this.index + 1) % this.servers.length;
    if (needsOperator) return this.maxBackoffMs;
    const rounds = Math.floor((this.failures - 1) / this.servers.length);
    return Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** Math.min(rounds, 30));
  }
}
