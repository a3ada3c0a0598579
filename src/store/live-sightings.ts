/**
 * The sighting columns as the gateway heard them (docs/store.md §Sightings). The journal writer
 * stores last_seen / last_ping throttled (src/writer/seen-log.ts: up to one sweep interval
 * behind); the exact values reach this thread on the ingest bus (`object-seen`, after COMMIT).
 * Every read of the main thread's ObjectsRepo shows the newer of the two, so the API, the
 * technician's page, the MySQL mirror, the status output and the tracker never see a stored
 * value older than what was heard.
 *
 * One entry per object heard since start, dropped once a read finds the store caught up, so the
 * map holds roughly the objects heard since the last sweep (bounded by the objects there are).
 */
import type { ObjectRecord } from './types.js';

interface Heard {
  seen: number;
  ping: number | null;
}

export class LiveSightings {
  private readonly heard = new Map<number, Heard>();

  /** An object-seen of the ingest bus: `at` wall ms; `ping` a NULL link test was among its messages. */
  note(objectId: number, at: number, ping: boolean): void {
    const entry = this.heard.get(objectId);
    if (!entry) {
      this.heard.set(objectId, { seen: at, ping: ping ? at : null });
      return;
    }
    if (at > entry.seen) entry.seen = at;
    if (ping && (entry.ping === null || at > entry.ping)) entry.ping = at;
  }

  /** The record with the newer of its stored and heard sightings. */
  apply(record: ObjectRecord): ObjectRecord {
    const entry = this.heard.get(record.id);
    if (!entry) return record;
    const seenNewer = entry.seen > record.lastSeen;
    const pingNewer = entry.ping !== null && (record.lastPing === null || entry.ping > record.lastPing);
    if (!seenNewer && !pingNewer) {
      // The store has caught up: it shows the same from now on.
      this.heard.delete(record.id);
      return record;
    }
    return {
      ...record,
      lastSeen: seenNewer ? entry.seen : record.lastSeen,
      lastPing: pingNewer ? entry.ping : record.lastPing,
    };
  }

  get size(): number {
    return this.heard.size;
  }
}
