/**
 * `login_failed` (docs/internal-events.md §login_failed): the login route reports every checked
 * attempt to its LoginThrottle, so a throttle that also raises the event needs no change in the
 * API. Many addresses guessing at once must not flood the outputs: at most one event per
 * `minIntervalMs`; the next one says how many failures it stands for.
 */
import type { AccountBurst } from '../auth/account-throttle.js';
import { LoginThrottle, type LoginThrottleOptions } from '../auth/login-throttle.js';
import type { RaiseInternalEvent } from './recorder.js';

export const DEFAULT_LOGIN_EVENT_INTERVAL_MS = 60_000;

export interface ReportingLoginThrottleOptions extends LoginThrottleOptions {
  readonly raise: RaiseInternalEvent;
  readonly minIntervalMs?: number;
}

export class ReportingLoginThrottle extends LoginThrottle {
  private readonly raise: RaiseInternalEvent;
  private readonly minIntervalMs: number;
  private readonly now: () => number;
  private lastEventAt: number | null = null;
  private unreported = 0;

  constructor(options: ReportingLoginThrottleOptions) {
    super(options);
    this.raise = options.raise;
    this.minIntervalMs = options.minIntervalMs ?? DEFAULT_LOGIN_EVENT_INTERVAL_MS;
    this.now = () => options.clock.now();
  }

  override finish(address: string, outcome: 'success' | 'failure' | null, login?: string): AccountBurst | null {
    const burst = super.finish(address, outcome, login);
    if (burst) {
      // A burst against one account is news at once, not after the minute's interval; the login
      // name stays on the box (docs/internal-events.md §login_failed).
      void this.raise('login_failed', {
        detail: `burst: ${burst.failures} failures for one account from ${burst.addresses} addresses`,
      });
    }
    if (outcome !== 'failure') return burst;
    this.unreported += 1;
    const now = this.now();
    if (this.lastEventAt !== null && now - this.lastEventAt < this.minIntervalMs) return burst;
    const count = this.unreported;
    this.lastEventAt = now;
    this.unreported = 0;
    // The address only, never the login name or password: the event leaves the gateway.
    const detail = count === 1 ? `from ${address}` : `${count} failures, last from ${address}`;
    void this.raise('login_failed', { detail });
    return burst;
  }
}
