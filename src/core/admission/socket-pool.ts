/**
 * The descriptor budget every door's sockets share (docs/security.md "Admission"): the TCP receivers'
 * connections, the API's HTTP and HTTPS sockets and the status output's clients. At most `limit`
 * sockets in the whole process, so that the store, the outputs and the threads always find
 * descriptors (fd-limit.ts keeps their reserve), and at most `perSource` of them from one source.
 * Who gets the last slots:
 *   - a socket is a *stranger* until its door trusts it (a device's ACKed frame, a request that
 *     carried a valid login), unless it came from a known source (known-sources.ts);
 *   - strangers may fill the budget only up to `strangerCeiling` (the rest is for known sources);
 *   - when a newcomer finds no room, the stranger idle the longest, whatever its door, is shed
 *     for it; trusted sockets are never shed. No stranger to shed: the newcomer is refused;
 *   - a door may have a floor (the API's listeners, the status output), at most a quarter of the
 *     budget: the part of it that door does not use is withheld from every other door, so that a
 *     flood of the receivers can never leave the API without a socket.
 * O(1) per open, per trust and per read of a stranger (a Map kept in order of last activity).
 */

/** One socket in the pool. */
export interface PooledSocket {
  /** The source key (source-key.ts) it is counted under. */
  readonly source: string;
  /** The door it came through (its floor and its count). */
  readonly door: object;
  /** Close it now: it is shed for a newcomer. */
  shed(): void;
}

/** Why the pool refused a socket; null: admitted. */
export type PoolRefusal = 'source-sockets' | 'sockets-full';

export class SocketPool {
  private limitValue = 1;
  private perSourceValue = 1;
  private ceiling = 1;
  private open = 0;
  private readonly members = new Set<PooledSocket>();
  /** Strangers, the longest idle first. */
  private readonly strangers = new Map<PooledSocket, true>();
  private readonly bySource = new Map<string, number>();
  /** Doors with a floor: the floor (read at each use) and the sockets the door holds. */
  private readonly floors = new Map<object, { floor: () => number; used: number }>();

  constructor(limit: number, perSource: number, knownReservePercent: number) {
    this.configure(limit, perSource, knownReservePercent);
  }

  /** New limits (a settings change); sockets already open stay. */
  configure(limit: number, perSource: number, knownReservePercent: number): void {
    this.limitValue = Math.max(1, limit);
    this.perSourceValue = Math.max(1, perSource);
    const reserve = Math.ceil((this.limitValue * Math.min(90, Math.max(0, knownReservePercent))) / 100);
    this.ceiling = Math.max(1, this.limitValue - reserve);
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Strangers beyond this many sockets in all get in only in place of another stranger. */
  get strangerCeiling(): number {
    return this.ceiling;
  }

  /** Sockets counted now. */
  get used(): number {
    return this.open;
  }

  /** Stranger sockets that could be shed now. */
  get sheddable(): number {
    return this.strangers.size;
  }

  /** Keeps `floor()` sockets for `door` while it serves: what it does not use, no other door may take. */
  reserve(door: object, floor: () => number): void {
    if (!this.floors.has(door)) this.floors.set(door, { floor, used: 0 });
  }

  /** The door stopped serving (its sockets are closed): its floor is given back. */
  unreserve(door: object): void {
    this.floors.delete(door);
  }

  /** Sockets withheld from `door`: the unused floors of the other doors. */
  private withheldFrom(door: object): number {
    let withheld = 0;
    const most = this.limitValue >> 2;
    for (const [other, entry] of this.floors) {
      if (other !== door) withheld += Math.max(0, Math.min(entry.floor(), most) - entry.used);
    }
    return withheld;
  }

  /** Sockets of one source now, every door together. */
  ofSource(source: string): number {
    return this.bySource.get(source) ?? 0;
  }

  /**
   * A new socket: null when it may stay (counted until release()), else why not. May shed the
   * longest-idle stranger to make room; `onShed` hears of it before the victim's shed() runs.
   */
  admit(socket: PooledSocket, stranger: boolean, onShed?: (victim: PooledSocket) => void): PoolRefusal | null {
    const fromSource = this.bySource.get(socket.source) ?? 0;
    if (fromSource >= this.perSourceValue) return 'source-sockets';
    const floor = this.floors.get(socket.door);
    // Within its floor a door needs no room from anyone: the others were kept out of it.
    const withinFloor = floor !== undefined && floor.used < Math.min(floor.floor(), this.limitValue >> 2);
    const ceiling = (stranger ? this.ceiling : this.limitValue) - this.withheldFrom(socket.door);
    if (!withinFloor && this.open >= ceiling) {
      const victim = this.strangers.keys().next().value;
      if (victim === undefined) return 'sockets-full';
      this.release(victim);
      onShed?.(victim);
      victim.shed();
    }
    this.open++;
    if (floor) floor.used++;
    this.members.add(socket);
    this.bySource.set(socket.source, (this.bySource.get(socket.source) ?? 0) + 1);
    if (stranger) this.strangers.set(socket, true);
    return null;
  }

  /** A stranger's socket read something: it is the most recently active now. */
  touch(socket: PooledSocket): void {
    if (this.strangers.delete(socket)) this.strangers.set(socket, true);
  }

  /** The socket proved itself (an ACKed frame, a logged-in request): never shed from now on. */
  trust(socket: PooledSocket): void {
    this.strangers.delete(socket);
  }

  isStranger(socket: PooledSocket): boolean {
    return this.strangers.has(socket);
  }

  /** The socket closed (or was shed); idempotent. */
  release(socket: PooledSocket): void {
    if (!this.members.delete(socket)) return;
    this.open--;
    const floor = this.floors.get(socket.door);
    if (floor) floor.used--;
    this.strangers.delete(socket);
    const n = (this.bySource.get(socket.source) ?? 1) - 1;
    if (n <= 0) this.bySource.delete(socket.source);
    else this.bySource.set(socket.source, n);
  }
}
