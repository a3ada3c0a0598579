/**
 * The one admission component (docs/security.md "Admission"). Every way a stranger can make the
 * box spend memory, descriptors, CPU or disk takes its share here: the TCP and UDP receivers, the
 * device link, the API and page listeners, the status output, uploads, new objects and new device
 * enrolments. Per source (an IPv4 address, an IPv6 /64: source-key.ts) and in total; known
 * sources are served first and strangers shed first: at the receivers, where a device reported
 * from (`devices`); at the API, where a user logged in from (`users`: a device's address earns no
 * place in the API's queue, nor a login's in the receivers'). Every refusal is counted per door and
 * reason (refusals.ts) and shown on the health component `admission` (GET /api/status) and in
 * GET /metrics.
 *
 * The limits are the settings section `admission` (docs/settings.md), read at each use through
 * `limits()`, so a settings save applies to the next socket, datagram or object. The shared doors
 * (API sockets, HELLOs, new objects, enrolments) live here; doors with limits of their own (each
 * receiver, the status output) are made here by their owner.
 */
import type { Clock } from '../clock.js';
import type { HealthRegistry } from '../health.js';
import type { Service } from '../service.js';
import {
  SocketDoor,
  RateDoor,
  type DoorHost,
  type RateDoorLimits,
  type SocketDoorLimits,
  type SocketDoorOptions,
  type Standing,
} from './doors.js';
import { KnownSources } from './known-sources.js';
import { perHour, perMinute } from './rate-table.js';
import { RefusalCounts, type DoorName, type RefusalReason } from './refusals.js';
import { SocketPool } from './socket-pool.js';

/** The settings section `admission` (src/settings/schema.ts declares it and its defaults). */
export interface AdmissionLimits {
  /** Sockets of every door together; 0: the open-files limit less a reserve (fd-limit.ts). */
  readonly max_sockets: number;
  readonly max_sockets_per_source: number;
  /** The part of the sockets only known sources may take. */
  readonly known_reserve_percent: number;
  readonly api_max_sockets: number;
  readonly api_max_sockets_per_source: number;
  readonly api_accepts_per_source_per_min: number;
  readonly api_stranger_accepts_per_s: number;
  readonly tls_handshake_timeout_s: number;
  readonly request_headers_timeout_s: number;
  readonly status_output_connects_per_source_per_min: number;
  readonly udp_stranger_datagrams_per_s: number;
  readonly link_hellos_per_source_per_min: number;
  readonly link_stranger_hellos_per_s: number;
  readonly new_objects_per_source_per_hour: number;
  readonly new_objects_per_receiver_per_hour: number;
  readonly new_objects_per_hour: number;
  readonly enrolments_per_source_per_hour: number;
  readonly enrolments_per_hour: number;
}

export const ADMISSION_HEALTH = 'admission';
/** How often the tables forget sources with a full allowance and the figures go to the health registry. */
export const ADMISSION_SWEEP_MS = 10_000;

export interface AdmissionDeps {
  readonly clock: Clock;
  /** The section as it is now; read at each use. */
  readonly limits: () => AdmissionLimits;
  /** The descriptor budget when `max_sockets` is 0 (fd-limit.ts connectionBudgetFor). */
  readonly autoSockets: () => number;
  readonly health?: HealthRegistry;
  /** How often figures are published and tables swept (tests: shorter). */
  readonly sweepMs?: number;
}

export class Admission implements Service, DoorHost {
  readonly name = ADMISSION_HEALTH;
  readonly clock: Clock;
  /** Sources of devices: objects' stored addresses, and every source that had a frame ACKed. */
  readonly devices = new KnownSources();
  /** Sources of logged-in users: every source that sent a request with a valid login. */
  readonly users = new KnownSources();
  readonly pool: SocketPool;
  readonly counts = new RefusalCounts();
  /** The API's and the page's plain-HTTP sockets. */
  readonly http: SocketDoor;
  /** The API's and the page's HTTPS sockets (a TLS handshake costs CPU: strangers have an accept rate in all). */
  readonly https: SocketDoor;
  /** Device-link HELLOs per source, and of all strangers together (each costs store reads and a key pair). */
  readonly hellos: RateDoor;
  /** Objects created by messages from accounts never seen: per source, per receiver, in total. */
  readonly newObjects: RateDoor;
  /** Device keys enrolled on the link: per source and in total. */
  readonly enrolments: RateDoor;
  private readonly deps: AdmissionDeps;
  private timer: NodeJS.Timeout | null = null;
  private autoSockets: number | null = null;

  constructor(deps: AdmissionDeps) {
    this.deps = deps;
    this.clock = deps.clock;
    const l = deps.limits();
    // Unbounded until start() resolves the budget (reading the open-files limit is I/O).
    this.pool = new SocketPool(
      l.max_sockets > 0 ? l.max_sockets : Number.MAX_SAFE_INTEGER,
      l.max_sockets_per_source,
      l.known_reserve_percent,
    );
    const api = (tls: boolean) =>
      this.derived((limits): SocketDoorLimits => {
        const strangers = limits.api_stranger_accepts_per_s;
        return {
          perSource: limits.api_max_sockets_per_source,
          total: limits.api_max_sockets,
          accepts: perMinute(limits.api_accepts_per_source_per_min),
          acceptsForStrangersOnly: true,
          // One second's worth at once: a browser's parallel connections fit, a burst of handshakes does not stall the loop.
          ...(tls ? { strangerAccepts: { perS: strangers, burst: strangers } } : {}),
        };
      });
    // Each listener keeps its share of the budget: no flood of the receivers leaves the API without a socket.
    const apiFloor = { standing: 'users' as const, floor: () => this.limits().api_max_sockets };
    this.http = this.socketDoor('http', api(false), apiFloor);
    this.https = this.socketDoor('https', api(true), apiFloor);
    this.hellos = this.rateDoor(
      'link',
      this.derived((limits) => ({
        perSource: perMinute(limits.link_hellos_per_source_per_min),
        total: { perS: limits.link_stranger_hellos_per_s, burst: limits.link_stranger_hellos_per_s * 2 },
        totalForStrangers: true,
      })),
    );
    this.newObjects = this.rateDoor(
      'new-object',
      this.derived((limits) => ({
        perSource: perHour(limits.new_objects_per_source_per_hour),
        perScope: perHour(limits.new_objects_per_receiver_per_hour),
        total: perHour(limits.new_objects_per_hour),
      })),
    );
    this.enrolments = this.rateDoor(
      'enrolment',
      this.derived((limits) => ({
        perSource: perHour(limits.enrolments_per_source_per_hour),
        total: perHour(limits.enrolments_per_hour),
      })),
    );
  }

  limits(): AdmissionLimits {
    return this.deps.limits();
  }

  /**
   * A door's limits made from the section, made again only when the section changed (the settings hand
   * out one frozen object until a save): doors read their limits for every datagram and socket.
   */
  derived<T>(build: (limits: AdmissionLimits) => T): () => T {
    let from: AdmissionLimits | null = null;
    let made: T;
    return () => {
      const limits = this.deps.limits();
      if (limits !== from) {
        from = limits;
        made = build(limits);
      }
      return made;
    };
  }

  /** A door with sockets and limits of its own (a TCP receiver, the status output). */
  socketDoor(name: DoorName, limits: () => SocketDoorLimits, options: SocketDoorOptions = {}): SocketDoor {
    return new SocketDoor(this, name, limits, options);
  }

  /** A door with rates of its own (a UDP receiver). */
  rateDoor(name: DoorName, limits: () => RateDoorLimits): RateDoor {
    return new RateDoor(this, name, limits);
  }

  isKnown(source: string, standing: Standing): boolean {
    return (standing === 'users' ? this.users : this.devices).has(source);
  }

  /** Counts a refusal (doors count their own; owners count what happens after admission: timeouts, unauthenticated uploads). */
  refused(door: DoorName, reason: RefusalReason): void {
    this.counts.add(door, reason);
  }

  /** The descriptor budget now (resolved from the open-files limit when the setting is 0). */
  get socketLimit(): number {
    return this.pool.limit;
  }

  /** Applies the section's socket limits to the pool (at start and after every settings save). */
  configure(): void {
    const l = this.limits();
    const sockets = l.max_sockets > 0 ? l.max_sockets : (this.autoSockets ??= this.deps.autoSockets());
    this.pool.configure(sockets, l.max_sockets_per_source, l.known_reserve_percent);
  }

  async start(): Promise<void> {
    this.begin();
  }

  /** start() without the promise, for an owner that builds synchronously (a receiver runtime of its own). */
  begin(): void {
    if (this.timer) return;
    this.configure();
    this.deps.health?.report(ADMISSION_HEALTH, 'admission', 'ok', null);
    this.publish();
    this.timer = setInterval(() => this.tick(), this.deps.sweepMs ?? ADMISSION_SWEEP_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.deps.health?.remove(ADMISSION_HEALTH);
  }

  /** The figures of GET /api/status: the budget, and refusals per door (`total` and each reason). */
  figures(): Record<string, number> {
    const out: Record<string, number> = {
      sockets_limit: this.pool.limit,
      sockets_used: this.pool.used,
      sockets_strangers: this.pool.sheddable,
      stranger_ceiling: this.pool.strangerCeiling,
      known_devices: this.devices.size,
      known_users: this.users.size,
    };
    for (const [door, reasons] of Object.entries(this.counts.byDoor())) {
      for (const [reason, n] of Object.entries(reasons)) out[`refused_${snake(door)}_${snake(reason)}`] = n;
    }
    return out;
  }

  /** Copies the figures to the health entry now (a timer does it every sweep). */
  publish(): void {
    this.deps.health?.setMetrics(ADMISSION_HEALTH, this.figures());
  }

  private tick(): void {
    const now = this.clock.now();
    this.http.sweep(now);
    this.https.sweep(now);
    this.hellos.sweep(now);
    this.newObjects.sweep(now);
    this.enrolments.sweep(now);
    this.publish();
  }
}

function snake(name: string): string {
  return name.replace(/-/g, '_');
}
