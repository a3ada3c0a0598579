/**
 * Throttled `last_seen` / `last_ping` / remote address (docs/receivers.md §Group commit,
 * "markSeen throttling"). The exact values of every sighting go out on the bus (`object-seen`):
 * the tracker works from them and the main thread shows them (src/store/live-sightings.ts), so
 * the stored row only has to let a restarted gateway carry on. A row is written at once when
 * something new is learnt (first sighting since start, first ping, another remote address, a
 * device back after a day's silence); every other sighting waits for the sweep, which writes what
 * is pending once per `intervalMs` of this thread's monotonic clock: in the batch then committing,
 * or in a commit of its own when no batch comes (the writer thread's timer, `dueInMs`). So a
 * sighting is stored at most `intervalMs` after it reached the writer, and a restarted tracker
 * allows for that (SEEN_MAX_LAG_MS, docs/supervision.md §Restart).
 */
import type { ObjectsPort } from './object-directory.js';

/**
 * How often pending sightings are written (decision, docs/benchmarks.md §Sightings sweep model): at a
 * site of 1,000 devices every sweep rewrites the whole `object_sightings` table (~24 pages), so
 * the bytes fall with the interval; a crash costs a restarted tracker up to this much of its
 * certainty (SEEN_MAX_LAG_MS).
 */
export const SEEN_PERSIST_MS = 60_000;
/**
 * How far a stored last_seen may lag what the gateway heard when it stopped without flushing
 * (crash, power loss): one sweep interval, plus a margin for the timer's lateness, the sweep's
 * commit and a sighting's way from the socket to the writer (milliseconds unless overloaded).
 */
export const SEEN_SWEEP_MARGIN_MS = 5_000;
export const SEEN_MAX_LAG_MS = SEEN_PERSIST_MS + SEEN_SWEEP_MARGIN_MS;
/** meta key: wall ms at which the writer wrote every pending sighting as it closed (docs/supervision.md §Restart). */
export const SIGHTINGS_FLUSHED_KEY = 'sightings.flushed_at';
/**
 * A device heard again after this long is written at once: retention deletes lost objects by the
 * stored last_seen (at least a day old), and must never delete one that was just heard.
 */
export const RESURFACED_MS = 24 * 3600_000;

export interface Sight {
  at: number;
  ping: boolean;
  remote: string;
}

interface Stored {
  at: number;
  pingAt: number | null;
  remote: string;
}

const PING = { ping: true };
const NO_PING = { ping: false };

export class SeenLog {
  private readonly intervalMs: number;
  private readonly now: () => number;
  /** What the row holds, as far as this writer wrote it. */
  private readonly stored = new Map<number, Stored>();
  /** Sightings not written yet: the latest per object. */
  private readonly pending = new Map<number, Sight>();
  /** Pending sightings written inside the transaction under way: pending again if it rolls back. */
  private readonly written = new Map<number, Sight>();
  private lastSweep: number;

  /** `now`: a monotonic clock (ms) of the writer's thread; sightings carry wall times, the sweep does not use them. */
  constructor(intervalMs = SEEN_PERSIST_MS, now: () => number = () => performance.now()) {
    this.intervalMs = intervalMs;
    this.now = now;
    this.lastSweep = now();
  }

  /**
   * Inside the batch's transaction: writes the sightings that must be written now and, once per
   * interval, every pending one.
   */
  apply(objects: ObjectsPort, seen: ReadonlyMap<number, Sight>): void {
    for (const [id, sight] of seen) {
      const stored = this.stored.get(id);
      // Only news is written at once; a device heard again waits for the sweep (at most intervalMs),
      // so 1,000 devices' link tests cost one write of each row per interval, not one each (docs/benchmarks.md §Site).
      const due =
        !stored ||
        sight.remote !== stored.remote ||
        (sight.ping && stored.pingAt === null) ||
        sight.at - stored.at >= RESURFACED_MS;
      if (due) this.write(objects, id, sight);
      else this.merge(id, sight);
    }
    // dueInMs is null while nothing is pending: no sweep then.
    if (this.dueInMs() === 0) this.sweep(objects);
  }

  /** The sweep (inside a transaction): every pending sighting, and the interval starts over. */
  sweep(objects: ObjectsPort): void {
    this.lastSweep = this.now();
    this.flush(objects);
  }

  /** Writes every pending sighting (the sweep, and the writer's stop). */
  flush(objects: ObjectsPort): void {
    for (const [id, sight] of this.pending) this.write(objects, id, sight);
  }

  /** Milliseconds until the sweep is due (0: now), null while nothing is pending. */
  dueInMs(): number | null {
    if (this.pending.size === 0) return null;
    const elapsed = this.now() - this.lastSweep;
    return elapsed >= this.intervalMs ? 0 : this.intervalMs - elapsed;
  }

  /** The transaction that wrote them committed. */
  committed(): void {
    this.written.clear();
  }

  /**
   * After a ROLLBACK nothing is known about the rows: the next sighting of each is written at
   * once, and what the sweep had written is pending again.
   */
  forget(): void {
    this.stored.clear();
    for (const [id, sight] of this.written) this.merge(id, sight);
    this.written.clear();
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  private merge(id: number, sight: Sight): void {
    const pending = this.pending.get(id);
    if (!pending) {
      this.pending.set(id, { at: sight.at, ping: sight.ping, remote: sight.remote });
      return;
    }
    if (sight.at > pending.at) pending.at = sight.at;
    if (sight.ping) pending.ping = true;
    pending.remote = sight.remote;
  }

  private write(objects: ObjectsPort, id: number, sight: Sight): void {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    const at = pending && pending.at > sight.at ? pending.at : sight.at;
    const ping = sight.ping || (pending?.ping ?? false);
    if (pending) this.written.set(id, pending);
    objects.markSeen(id, at, sight.remote, ping ? PING : NO_PING);
    const prior = this.stored.get(id);
    this.stored.set(id, { at, pingAt: ping ? at : (prior?.pingAt ?? null), remote: sight.remote });
  }
}
