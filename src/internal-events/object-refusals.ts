/**
 * Messages from accounts never seen that the new-object allowance refused (docs/security.md "Admission",
 * src/receivers/new-object-gate.ts), journaled on the main thread as the internal event `new_object_refused`
 * (always journaled: a stranger inventing accounts is a security event, and an installer bringing a new site
 * online learns from it that the allowance needs raising).
 *
 * A flood must not fill the journal in turn: at most one event per source per ten minutes and at most
 * MAX_EVENTS_PER_INTERVAL in all in ten minutes; the next event of a source says how many refusals it stands for. The refusal
 * itself never waits for the journal, and memory is bounded (MAX_TRACKED sources).
 */
import type { Clock } from '../core/clock.js';
import { JournalRateLimit } from '../core/journal-rate-limit.js';
import type { Logger } from '../core/logger.js';
import type { RaiseInternalEvent } from './recorder.js';

/** What the receivers report (NewObjectGate's refusal). */
export interface RefusedObject {
  readonly receiverId: number;
  /** The source (src/core/source-key.ts) that spent its allowance, or whose receiver or gateway did. */
  readonly source: string;
  readonly account: string;
}

export const OBJECT_REFUSAL_INTERVAL_MS = 10 * 60_000;
export const MAX_EVENTS_PER_INTERVAL = 100;
const MAX_TRACKED = 4096;

export class ObjectRefusals {
  private readonly deps: { readonly clock: Clock; readonly logger: Logger };
  private raise: RaiseInternalEvent | null = null;
  private readonly limit = new JournalRateLimit({
    intervalMs: OBJECT_REFUSAL_INTERVAL_MS,
    maxPerInterval: MAX_EVENTS_PER_INTERVAL,
    maxTracked: MAX_TRACKED,
  });

  constructor(deps: { readonly clock: Clock; readonly logger: Logger }) {
    this.deps = deps;
  }

  /** Where refusals are journaled (the internal-event recorder, built after the receivers' runtime). */
  journalTo(raise: RaiseInternalEvent | null): void {
    this.raise = raise;
  }

  report(refusal: RefusedObject): void {
    const stands = this.limit.admit(refusal.source, this.deps.clock.now());
    if (stands === null || !this.raise) return;
    const more = stands > 0 ? `, ${stands} more since the last event` : '';
    this.raise('new_object_refused', {
      detail: `receiver ${refusal.receiverId}: account ${refusal.account} from ${refusal.source} is over the new-object allowance${more}`,
    }).catch(() => this.deps.logger.warn('cannot journal a refused new object', { source: refusal.source }));
  }
}
