/**
 * Device identity conflicts on the link (docs/device-link.md §4.5): a HELLO whose proof failed, a
 * known UID that is not enrolled, an enrolment of a UID that has a key, a proven device's new
 * address while its old link was alive. Each is journaled as the internal event
 * `device_identity_conflict` and shown on the Status view (health component
 * `link-identity:<receiver id>`, so `visible_receivers` applies).
 *
 * A flood must not fill the journal: at most one event per UID and source host per minute, and at
 * most MAX_EVENTS_PER_MINUTE in all; the rest are counted (`suppressed`) and the next event of the
 * same UID and host says how many it stands for. Memory is bounded (MAX_TRACKED pairs).
 */
import type { Clock } from '../core/clock.js';
import type { HealthRegistry } from '../core/health.js';
import { JournalRateLimit } from '../core/journal-rate-limit.js';
import type { Logger } from '../core/logger.js';
import type { IdentityConflictReason } from '../protocols/device-link/hello-handler.js';
import type { RaiseInternalEvent } from '../internal-events/recorder.js';

export const CONFLICT_INTERVAL_MS = 60_000;
export const MAX_EVENTS_PER_MINUTE = 30;
const MAX_TRACKED = 4096;

export interface IdentityConflict {
  readonly uid: string;
  /** "host:port" of the connection the conflict came from. */
  readonly remote: string;
  readonly reason: IdentityConflictReason;
  readonly receiverId: number;
}

interface Counts {
  conflicts: number;
  suppressed: number;
}

/** "1.2.3.4:5" -> "1.2.3.4", "[::1]:5" -> "::1". */
export function hostOf(remote: string): string {
  const v6 = /^\[(.*)\]:\d+$/.exec(remote);
  if (v6) return v6[1]!;
  const colon = remote.lastIndexOf(':');
  return colon > 0 && remote.indexOf(':') === colon ? remote.slice(0, colon) : remote;
}

export class IdentityConflicts {
  private readonly deps: { readonly clock: Clock; readonly logger: Logger; readonly health: HealthRegistry };
  private raise: RaiseInternalEvent | null = null;
  /** Keyed by UID + host. */
  private readonly limit = new JournalRateLimit({
    intervalMs: CONFLICT_INTERVAL_MS,
    maxPerInterval: MAX_EVENTS_PER_MINUTE,
    maxTracked: MAX_TRACKED,
  });
  private readonly perReceiver = new Map<number, Counts>();

  constructor(deps: { readonly clock: Clock; readonly logger: Logger; readonly health: HealthRegistry }) {
    this.deps = deps;
  }

  /** Where conflicts are journaled (the internal-event recorder, built after the receivers). */
  journalTo(raise: RaiseInternalEvent | null): void {
    this.raise = raise;
  }

  report(conflict: IdentityConflict): void {
    const now = this.deps.clock.now();
    const host = hostOf(conflict.remote);
    const counts = this.perReceiver.get(conflict.receiverId) ?? { conflicts: 0, suppressed: 0 };
    this.perReceiver.set(conflict.receiverId, counts);
    counts.conflicts++;
    const journaled = this.limit.admit(`${conflict.uid}|${host}`, now);
    if (journaled === null) counts.suppressed++;
    this.deps.logger.warn('device identity conflict', {
      uid: conflict.uid,
      remote: conflict.remote,
      reason: conflict.reason,
      receiver_id: conflict.receiverId,
      journaled: journaled !== null,
    });
    this.deps.health.report(
      `link-identity:${conflict.receiverId}`,
      'link-identity',
      'ok',
      `${counts.conflicts} device identity conflict(s); last: UID ${conflict.uid} from ${host} (${conflict.reason})`,
      {
        receiver_id: conflict.receiverId,
        conflicts: counts.conflicts,
        suppressed: counts.suppressed,
        last_uid: conflict.uid,
        last_remote: host,
        last_reason: conflict.reason,
        last_at: now,
      },
    );
    if (journaled === null || !this.raise) return;
    const more = journaled > 0 ? `, ${journaled} more since the last event` : '';
    void this.raise('device_identity_conflict', {
      detail: `UID ${conflict.uid} from ${host}: ${conflict.reason}${more}`,
    });
  }
}
