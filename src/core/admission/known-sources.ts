/**
 * Sources (source-key.ts) the admission serves first (docs/security.md "Admission"): the address an
 * object last reported from (read from the store when the receivers are first built), every address
 * that has since completed a valid frame (an ACKed DC-09 frame on TCP or UDP, a welcomed HELLO), and
 * every address a user logged in from (a request with a valid token or session). What it decides:
 *   - sockets: a known source's new socket may use the part of the descriptor budget strangers
 *     cannot, and is never shed for a newcomer;
 *   - UDP: a known source's datagrams are not charged to the strangers' total, and a reply longer
 *     than its datagram goes only to a known source (no amplification).
 * Bounded: beyond `max` entries the oldest learned goes first (a Set keeps insertion order).
 */
import { sourceKeyOfRemote } from '../source-key.js';

export const KNOWN_SOURCES_MAX = 100_000;

export class KnownSources {
  private readonly keys = new Set<string>();
  private readonly max: number;

  constructor(max = KNOWN_SOURCES_MAX) {
    this.max = max;
  }

  get size(): number {
    return this.keys.size;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    if (this.keys.has(key)) return;
    if (this.keys.size >= this.max) {
      const oldest = this.keys.values().next().value;
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    this.keys.add(key);
  }

  /** Objects' stored remote addresses ("ip:port", "[v6]:port"); anything else (a port path, null) is skipped. */
  load(remotes: Iterable<string | null>): void {
    for (const remote of remotes) {
      const key = sourceKeyOfRemote(remote);
      if (key !== null) this.add(key);
    }
  }
}
