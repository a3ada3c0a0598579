/**
 * The connection budget every TCP receiver shares (docs/receivers.md §Connection budget): at most
 * `limit` device connections in the whole process, so that the API, the store and the outputs
 * always find file descriptors (fd-limit.ts keeps their reserve). Who gets the last slots:
 *   - a connection is a *stranger* until it completes a valid frame (an ACKed frame), unless its
 *     source is known (known-sources.ts: an address an object last reported from, or one that
 *     completed a valid frame before);
 *   - strangers may fill the budget only up to `strangerCeiling` (the last twentieth is for known
 *     devices); past it a stranger gets in only in place of another stranger;
 *   - when a newcomer finds no room, the stranger connection idle the longest is shed for it;
 *     connections that sent a valid frame and those from known sources are never shed. No
 *     stranger to shed: the newcomer is refused.
 * O(1) per accept, per trusted connection and per read of a stranger (a Map kept in order of
 * last activity: delete and set again).
 */

export interface BudgetedConnection {
  /** Close it now: it is shed for a newcomer. */
  shed(): void;
}

export class ConnectionBudget {
  readonly limit: number;
  /** Strangers beyond this many connections in all get in only in place of another stranger. */
  readonly strangerCeiling: number;
  private open = 0;
  private readonly members = new Set<BudgetedConnection>();
  /** Strangers, the longest idle first. */
  private readonly strangers = new Map<BudgetedConnection, true>();

  constructor(limit: number) {
    this.limit = Math.max(1, limit);
    this.strangerCeiling = Math.max(1, this.limit - Math.ceil(this.limit / 20));
  }

  /** Connections counted now. */
  get used(): number {
    return this.open;
  }

  /** Stranger connections that could be shed now. */
  get sheddable(): number {
    return this.strangers.size;
  }

  /**
   * A new connection: true when it may stay (counted until release()). A stranger is one from a
   * source not known. May shed the longest-idle stranger to make room.
   */
  admit(connection: BudgetedConnection, stranger: boolean): boolean {
    const ceiling = stranger ? this.strangerCeiling : this.limit;
    if (this.open >= ceiling) {
      const victim = this.strangers.keys().next().value;
      if (victim === undefined) return false;
      this.release(victim);
      victim.shed();
    }
    this.open++;
    this.members.add(connection);
    if (stranger) this.strangers.set(connection, true);
    return true;
  }

  /** A stranger's connection read something: it is the most recently active now. */
  touch(connection: BudgetedConnection): void {
    if (this.strangers.delete(connection)) this.strangers.set(connection, true);
  }

  /** The connection completed a valid frame: never shed from now on. */
  trust(connection: BudgetedConnection): void {
    this.strangers.delete(connection);
  }

  /** The connection closed (or was shed); idempotent. */
  release(connection: BudgetedConnection): void {
    if (!this.members.delete(connection)) return;
    this.open--;
    this.strangers.delete(connection);
  }
}
