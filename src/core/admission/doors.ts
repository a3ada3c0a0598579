/**
 * The two kinds of door a stranger can knock on (docs/security.md "Admission"):
 *   - a SocketDoor holds sockets (TCP receivers, the API's HTTP and HTTPS listeners, the status
 *     output): an accept rate and open sockets per source, open sockets at this door (a full door
 *     sheds its longest-idle stranger for a newcomer), then a slot in the one SocketPool every
 *     door shares (descriptors), where strangers are shed first the same way;
 *   - a RateDoor spends tokens (UDP datagrams, device-link HELLOs, new objects, enrolments): per
 *     source, per scope (a receiver) and in total, each a token bucket. A refusal spends nothing.
 * Doors are made by the Admission (admission.ts), which counts every refusal per door and reason.
 */
import type { Clock } from '../clock.js';
import type { DoorName, RefusalReason } from './refusals.js';
import type { PooledSocket, SocketPool } from './socket-pool.js';
import { RateTable, type Rate } from './rate-table.js';

/** Whose sources a door serves first: devices' (the receivers) or logged-in users' (the API). */
export type Standing = 'devices' | 'users';

/** What a door tells the admission: a refusal to count; the known sources to serve first. */
export interface DoorHost {
  readonly clock: Clock;
  readonly pool: SocketPool;
  isKnown(source: string, standing: Standing): boolean;
  refused(door: DoorName, reason: RefusalReason): void;
}

export interface SocketDoorLimits {
  /** Open sockets of one source at this door. */
  readonly perSource: number;
  /** Open sockets at this door. */
  readonly total: number;
  /** New sockets of one source; absent: no rate (the pool still bounds them). */
  readonly accepts?: Rate;
  /** The per-source rate holds strangers only (the API: a logged-in user's script may open what it needs). */
  readonly acceptsForStrangersOnly?: boolean;
  /** New sockets of all strangers together (the API's TLS handshakes cost CPU); absent: none. */
  readonly strangerAccepts?: Rate;
}

export interface SocketDoorOptions {
  /** Whose sources are served first here (default: devices'). */
  readonly standing?: Standing;
  /** Sockets of the shared budget kept for this door while it serves (serving(), socket-pool.ts); absent: none. */
  readonly floor?: () => number;
}

/** A socket admitted by a SocketDoor, until release(). */
export interface SocketTicket {
  readonly source: string;
  /** True until the socket proved itself (trust()) or when it came from a known source. */
  readonly stranger: boolean;
  /** The socket read something: a stranger moves to the back of the shedding queue. */
  touch(): void;
  /** The socket proved itself (an ACKed frame, a request with a valid login): never shed now. */
  trust(): void;
  /** The socket closed; idempotent. */
  release(): void;
}

class Ticket implements SocketTicket, PooledSocket {
  stranger: boolean;
  private released = false;

  constructor(
    readonly source: string,
    stranger: boolean,
    readonly door: SocketDoor,
    private readonly label: DoorName,
    private readonly onShed: () => void,
  ) {
    this.stranger = stranger;
  }

  shed(): void {
    this.door.shedTicket(this, this.label);
    this.onShed();
  }

  touch(): void {
    if (this.stranger) this.door.touchTicket(this);
  }

  trust(): void {
    if (!this.stranger) return;
    this.stranger = false;
    this.door.trustTicket(this);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.door.releaseTicket(this);
  }
}

export class SocketDoor {
  readonly host: DoorHost;
  private readonly name: DoorName;
  private readonly standing: Standing;
  private readonly floor: (() => number) | null;
  private readonly limits: () => SocketDoorLimits;
  private readonly bySource = new Map<string, number>();
  private readonly accepts: RateTable;
  private readonly strangerAccepts: RateTable;
  /** This door's strangers, the longest idle first. */
  private readonly strangers = new Map<Ticket, true>();
  private open = 0;

  /** `limits` is read at each accept: a settings change applies to the next socket. */
  constructor(host: DoorHost, name: DoorName, limits: () => SocketDoorLimits, options: SocketDoorOptions = {}) {
    this.host = host;
    this.name = name;
    this.limits = limits;
    this.standing = options.standing ?? 'devices';
    this.floor = options.floor ?? null;
    this.accepts = new RateTable(() => this.limits().accepts ?? { perS: 1, burst: 1 });
    this.strangerAccepts = new RateTable(() => this.limits().strangerAccepts ?? { perS: 1, burst: 1 }, 1);
  }

  /** The door's listener is up (true) or down (false): its floor is kept in the shared budget, or given back. */
  serving(up: boolean): void {
    if (this.floor === null) return;
    if (up) this.host.pool.reserve(this, this.floor);
    else this.host.pool.unreserve(this);
  }

  /** Sockets open at this door now. */
  get used(): number {
    return this.open;
  }

  /** Sockets of one source open at this door now. */
  ofSource(source: string): number {
    return this.bySource.get(source) ?? 0;
  }

  /**
   * A new socket from `source`: its ticket, or why it is refused (counted). `onShed` closes the
   * socket when the pool sheds it for a newcomer. `known`: the caller knows the socket is no
   * stranger whatever its source.
   */
  admit(source: string, onShed: () => void, options: { known?: boolean } = {}): SocketTicket | RefusalReason {
    const label = this.name;
    const limits = this.limits();
    const stranger = !(options.known ?? false) && !this.host.isKnown(source, this.standing);
    const refusal = this.check(source, limits, stranger);
    if (refusal !== null) {
      this.host.refused(label, refusal);
      return refusal;
    }
    // A full door makes room the pool's way: its longest-idle stranger goes; no stranger, no room.
    if (this.open >= limits.total) {
      const victim = this.strangers.keys().next().value;
      if (victim === undefined) {
        this.host.refused(label, 'door-sockets');
        return 'door-sockets';
      }
      victim.shed();
    }
    const ticket = new Ticket(source, stranger, this, label, onShed);
    const pooled = this.host.pool.admit(ticket, stranger);
    if (pooled !== null) {
      this.host.refused(label, pooled);
      return pooled;
    }
    const now = this.host.clock.now();
    if (limits.accepts && (stranger || !limits.acceptsForStrangersOnly)) this.accepts.take(source, now);
    if (stranger && limits.strangerAccepts) this.strangerAccepts.take('', now);
    this.open++;
    this.bySource.set(source, (this.bySource.get(source) ?? 0) + 1);
    if (stranger) this.strangers.set(ticket, true);
    return ticket;
  }

  /** A ticket of this door read something (called by the ticket). */
  touchTicket(ticket: Ticket): void {
    this.host.pool.touch(ticket);
    if (this.strangers.delete(ticket)) this.strangers.set(ticket, true);
  }

  /** A ticket of this door proved itself (called by the ticket). */
  trustTicket(ticket: Ticket): void {
    this.host.pool.trust(ticket);
    this.strangers.delete(ticket);
  }

  /** Forgets the rate state of sources that have their whole allowance again. */
  sweep(now: number): void {
    this.accepts.sweep(now);
  }

  /** The pool shed this door's ticket (called by the ticket). */
  shedTicket(ticket: Ticket, label: DoorName): void {
    this.host.refused(label, 'shed');
    ticket.release();
  }

  /** A ticket of this door was released (called once per ticket). */
  releaseTicket(ticket: Ticket): void {
    this.host.pool.release(ticket);
    this.strangers.delete(ticket);
    this.open--;
    const n = (this.bySource.get(ticket.source) ?? 1) - 1;
    if (n <= 0) this.bySource.delete(ticket.source);
    else this.bySource.set(ticket.source, n);
  }

  private check(source: string, limits: SocketDoorLimits, stranger: boolean): RefusalReason | null {
    const now = this.host.clock.now();
    const rated = limits.accepts !== undefined && (stranger || !limits.acceptsForStrangersOnly);
    if (rated && !this.accepts.has(source, now)) return 'source-rate';
    if (stranger && limits.strangerAccepts && !this.strangerAccepts.has('', now)) return 'total-rate';
    if ((this.bySource.get(source) ?? 0) >= limits.perSource) return 'source-sockets';
    return null;
  }
}

export interface RateDoorLimits {
  readonly perSource: Rate;
  /** Per scope (a receiver's new objects); absent: none. */
  readonly perScope?: Rate;
  /** For the whole door; absent: none. */
  readonly total?: Rate;
  /**
   * The total is the strangers' only: a known source is neither charged nor refused by it (UDP
   * datagrams: a flood of forged sources must not crowd out the devices). Otherwise everyone's.
   */
  readonly totalForStrangers?: boolean;
}

export class RateDoor {
  private readonly host: DoorHost;
  private readonly name: DoorName;
  private readonly sources: RateTable;
  private readonly scopes: RateTable;
  private readonly totals: RateTable;
  private readonly limits: () => RateDoorLimits;

  /** `limits` is read at each use: a settings change applies at once. */
  constructor(host: DoorHost, name: DoorName, limits: () => RateDoorLimits) {
    this.host = host;
    this.name = name;
    this.limits = limits;
    this.sources = new RateTable(() => this.limits().perSource);
    this.scopes = new RateTable(() => this.limits().perScope ?? this.limits().perSource);
    this.totals = new RateTable(() => this.limits().total ?? this.limits().perSource, 1);
  }

  /**
   * One token for `source` (and `scope`, when the door has a per-scope rate); false, counted, when
   * any of its buckets is empty, and then nothing is spent.
   */
  take(source: string, scope?: string | number): boolean {
    const limits = this.limits();
    const now = this.host.clock.now();
    const chargeTotal =
      limits.total !== undefined && !(limits.totalForStrangers && this.host.isKnown(source, 'devices'));
    const scopeKey = limits.perScope !== undefined && scope !== undefined ? String(scope) : null;
    let refusal: RefusalReason | null = null;
    if (!this.sources.has(source, now)) refusal = 'source-rate';
    else if (scopeKey !== null && !this.scopes.has(scopeKey, now)) refusal = 'scope-rate';
    else if (chargeTotal && !this.totals.has('', now)) refusal = 'total-rate';
    if (refusal !== null) {
      this.host.refused(this.name, refusal);
      return false;
    }
    this.sources.take(source, now);
    if (scopeKey !== null) this.scopes.take(scopeKey, now);
    if (chargeTotal) this.totals.take('', now);
    return true;
  }

  sweep(now: number): void {
    this.sources.sweep(now);
    this.scopes.sweep(now);
  }
}
