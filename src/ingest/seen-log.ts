/**
 * Throttled `last_seen` / `last_ping` / remote address (docs/receivers.md §Group commit,
 * "markSeen throttling"). The exact values of every sighting go out on the bus (`object-seen`,
 * which the tracker works from); the objects row only needs to be roughly current (the API
 * shows it, and a restarted tracker starts its grace from it). So a row is written at once
 * when something new is learnt (first sighting since start, first ping, another remote
 * address); every other sighting waits for the sweep, which writes what is pending once per
 * `intervalMs`. One UPDATE per object per commit was as dear as the journal inserts themselves
 * with one event per device per commit, and one commit per link test of a quiet site wrote
 * gigabytes a day.
 */
import type { ObjectsPort } from './object-directory.js';

/** How stale the stored last_seen / last_ping of an active object may get. */
export const SEEN_PERSIST_MS = 10_000;

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
  /** What the row holds, as far as this writer wrote it. */
  private readonly stored = new Map<number, Stored>();
  /** Sightings not written yet: the latest per object. */
  private readonly pending = new Map<number, Sight>();
  private lastSweep = -Infinity;

  constructor(intervalMs = SEEN_PERSIST_MS) {
    this.intervalMs = intervalMs;
  }

  /**
   * Inside the batch's transaction: writes the sightings that must be written now and, once per
   * interval, every pending one. `now` is the batch's newest receivedAt.
   */
  apply(objects: ObjectsPort, seen: ReadonlyMap<number, Sight>, now: number): void {
    for (const [id, sight] of seen) {
      const stored = this.stored.get(id);
      // Only news is written at once; a device heard again waits for the sweep (at most intervalMs),
      // so 1,000 devices' link tests cost one commit per interval, not one each (docs/benchmarks.md §Site).
      const due = !stored || sight.remote !== stored.remote || (sight.ping && stored.pingAt === null);
      if (due) this.write(objects, id, sight);
      else this.merge(id, sight);
    }
    if (now - this.lastSweep >= this.intervalMs) {
      this.lastSweep = now;
      this.flush(objects);
    }
  }

  /** Writes every pending sighting (the sweep, and the writer's stop). */
  flush(objects: ObjectsPort): void {
    for (const [id, sight] of this.pending) this.write(objects, id, sight);
  }

  /** After a ROLLBACK nothing is known about the rows: the next sighting of each is written. */
  forget(): void {
    this.stored.clear();
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
    objects.markSeen(id, at, sight.remote, ping ? PING : NO_PING);
    const prior = this.stored.get(id);
    this.stored.set(id, { at, pingAt: ping ? at : (prior?.pingAt ?? null), remote: sight.remote });
  }
}
