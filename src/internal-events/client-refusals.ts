/**
 * Clients a TCP server output refused (not on its allow-list, docs/outputs.md §TCP server), journaled on the main
 * thread as the internal event `output_client_refused` (always journaled, like device identity conflicts: a stranger
 * knocking on the automation port is a security event).
 *
 * A scanner must not fill the journal: at most one event per output and source host per minute, and at most
 * MAX_EVENTS_PER_MINUTE in all; the next event of the same output and host says how many it stands for. The
 * refusal itself never waits for the journal, and memory is bounded (MAX_TRACKED pairs).
 */
import type { Clock } from '../core/clock.js';
import { JournalRateLimit } from '../core/journal-rate-limit.js';
import type { Logger } from '../core/logger.js';
import type { RaiseInternalEvent } from './recorder.js';

/** What a TCP server output reports (src/outputs/build-outputs.ts ClientRefusal has this shape). */
export interface RefusedClient {
  readonly output: number;
  /** "host:port" of the refused client. */
  readonly remote: string;
}

export const REFUSAL_INTERVAL_MS = 60_000;
export const MAX_EVENTS_PER_MINUTE = 30;
const MAX_TRACKED = 4096;

export class ClientRefusals {
  private readonly deps: { readonly clock: Clock; readonly logger: Logger };
  private raise: RaiseInternalEvent | null = null;
  private readonly limit = new JournalRateLimit({
    intervalMs: REFUSAL_INTERVAL_MS,
    maxPerInterval: MAX_EVENTS_PER_MINUTE,
    maxTracked: MAX_TRACKED,
  });

  constructor(deps: { readonly clock: Clock; readonly logger: Logger }) {
    this.deps = deps;
  }

  /** Where refusals are journaled (the internal-event recorder, built after the outputs' host). */
  journalTo(raise: RaiseInternalEvent | null): void {
    this.raise = raise;
  }

  report(refusal: RefusedClient): void {
    const host = hostOf(refusal.remote);
    const stands = this.limit.admit(`${refusal.output}|${host}`, this.deps.clock.now());
    if (stands === null || !this.raise) return;
    const more = stands > 0 ? `, ${stands} more since the last event` : '';
    this.raise('output_client_refused', {
      detail: `output ${refusal.output}: ${refusal.remote} is not on the allow-list${more}`,
    }).catch(() => this.deps.logger.warn('cannot journal a refused output client', { remote: refusal.remote }));
  }
}

/** "1.2.3.4:5" -> "1.2.3.4", "[::1]:5" -> "::1". */
function hostOf(remote: string): string {
  const v6 = /^\[(.*)\]:\d+$/.exec(remote);
  if (v6) return v6[1]!;
  const colon = remote.lastIndexOf(':');
  return colon > 0 ? remote.slice(0, colon) : remote;
}
