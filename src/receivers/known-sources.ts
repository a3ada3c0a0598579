/**
 * Source addresses (source-key.ts) that belong to devices: the address an object last reported from
 * (read from the store once, when the receivers are first built) and every address that has since
 * completed a valid frame (an ACKed DC-09 frame on TCP or UDP). Shared by all IP receivers for the
 * gateway's life. What it decides (docs/receivers.md §Per-source limits):
 *   - TCP: a known source's new connection may use the last part of the connection budget that
 *     strangers cannot, and is never shed for a newcomer;
 *   - UDP: a reply longer than its datagram goes only to a known source (no amplification, #28.9).
 * Bounded: beyond `max` entries the oldest learned goes first (a Set keeps insertion order).
 */
import { sourceKeyOfRemote } from '../core/source-key.js';

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
