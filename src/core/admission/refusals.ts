/**
 * Every door a stranger can reach and every reason it can be refused there (docs/security.md
 * "Admission"), and the counts of refusals per door and reason that GET /metrics and
 * GET /api/status show.
 */

export const DOORS = [
  /** DC-09 TCP receivers: connections. */
  'tcp',
  /** DC-09 UDP receivers: datagrams. */
  'udp',
  /** The device link on TCP receivers: HELLOs (each costs store reads and key material). */
  'link',
  /** The API and the page on plain HTTP: sockets. */
  'http',
  /** The API and the page on HTTPS: sockets (and TLS handshakes). */
  'https',
  /** The device status output: clients. */
  'status-output',
  /** Uploads (restore, update): refused before any body is read. */
  'upload',
  /** Objects created by a message from an account never seen. */
  'new-object',
  /** Device keys enrolled on the link (trust on first use). */
  'enrolment',
] as const;

export type DoorName = (typeof DOORS)[number];

export const REFUSAL_REASONS = [
  /** The source spent its allowance (accepts, datagrams, HELLOs, objects, enrolments, connects). */
  'source-rate',
  /** The scope (a receiver's new objects) spent its allowance. */
  'scope-rate',
  /** The door's allowance for everyone (strangers only, for UDP) is spent. */
  'total-rate',
  /** The source holds as many sockets as it may, at this door or across doors. */
  'source-sockets',
  /** The door holds as many sockets as it may. */
  'door-sockets',
  /** The descriptor budget is full and no stranger could be shed. */
  'sockets-full',
  /** A stranger's socket closed to make room for a newcomer. */
  'shed',
  /** A stranger's socket closed: no valid frame, request or TLS handshake in time. */
  'timeout',
  /** A request or upload refused before its body was read: no valid login. */
  'unauthenticated',
  /** A status-output client that did not prove the key. */
  'unproven',
] as const;

export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Refusals per door and reason since start. */
export class RefusalCounts {
  private readonly counts = new Map<string, number>();

  add(door: DoorName, reason: RefusalReason, n = 1): void {
    const key = `${door}|${reason}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  get(door: DoorName, reason: RefusalReason): number {
    return this.counts.get(`${door}|${reason}`) ?? 0;
  }

  /** Every door's refusals: `total`, and the count of each reason seen. */
  byDoor(): Record<DoorName, Partial<Record<RefusalReason, number>> & { total: number }> {
    const out = {} as Record<DoorName, Partial<Record<RefusalReason, number>> & { total: number }>;
    for (const door of DOORS) out[door] = { total: 0 };
    for (const [key, n] of this.counts) {
      const [door, reason] = key.split('|') as [DoorName, RefusalReason];
      out[door][reason] = n;
      out[door].total += n;
    }
    return out;
  }

  /** [door, reason, count] of every pair seen. */
  entries(): Array<[DoorName, RefusalReason, number]> {
    return [...this.counts].map(([key, n]) => {
      const [door, reason] = key.split('|') as [DoorName, RefusalReason];
      return [door, reason, n];
    });
  }
}
