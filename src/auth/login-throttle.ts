/**
 * Per-address backoff for POST /api/login (the contract states no rate limit; this is Vigil's
 * own rule, docs/api.md "Login throttle"):
 *   - 5 consecutive failures from one address are free;
 *   - after the 5th, attempts are refused for 1 s, doubling with every further failure, at most 5 min;
 *   - a success resets the address;
 *   - attempts in flight count against the free budget, so a burst of parallel guesses cannot
 *     slip past before the first failure is recorded (once throttled: one attempt in flight at most).
 * Memory is bounded: the least recently used address is forgotten beyond `maxAddresses`.
 * Addresses are counted by sourceKey (src/core/source-key.ts): IPv6 per /64, so one host cannot rotate through its prefix.
 * Failures are also counted per login name (AccountThrottle: distributed guessing of one account),
 * with the same keys for the names' failing and trusted addresses.
 */
import type { Clock } from '../core/clock.js';
import { admitAttempt, backoffDelay, touchLru, type AttemptState, type ThrottleDecision } from './backoff.js';
import { sourceKey } from '../core/source-key.js';
import { AccountThrottle, type AccountBurst, type AccountThrottleOptions } from './account-throttle.js';

export interface LoginThrottleOptions {
  readonly clock: Clock;
  readonly freeFailures?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly maxAddresses?: number;
  readonly accounts?: Omit<AccountThrottleOptions, 'clock' | 'knownLogin'>;
  /** True for a login name a user record has now (per-name state that is never evicted). */
  readonly knownLogin?: (login: string) => boolean;
}

/** Login names longer than this are tracked by their first characters (no real login is that long). */
const MAX_TRACKED_LOGIN = 256;

export type { ThrottleDecision } from './backoff.js';

type AddressState = AttemptState;

export class LoginThrottle {
  private readonly clock: Clock;
  private readonly freeFailures: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxAddresses: number;
  /** Map iteration order is insertion order: re-inserting on use makes the first key the LRU one. */
  private readonly states = new Map<string, AddressState>();
  private readonly accounts: AccountThrottle;

  constructor(options: LoginThrottleOptions) {
    this.clock = options.clock;
    this.freeFailures = options.freeFailures ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.accounts = new AccountThrottle({
      ...options.accounts,
      clock: options.clock,
      ...(options.knownLogin ? { knownLogin: (login: string) => options.knownLogin!(login) } : {}),
    });
  }

  /** Number of addresses currently remembered (for tests and metrics). */
  size(): number {
    return this.states.size;
  }

  /** Call before checking a password; when allowed, call `finish` exactly once afterwards. */
  begin(address: string): ThrottleDecision {
    return admitAttempt(this.touch(sourceKey(address)), this.clock.now(), this.freeFailures);
  }

  /**
   * The per-account check, once the login name is known (after `begin` allowed the address).
   * When allowed, pass the same `login` to `finish`.
   */
  beginAccount(login: string, address: string): ThrottleDecision {
    return this.accounts.begin(login.slice(0, MAX_TRACKED_LOGIN), sourceKey(address));
  }

  /**
   * Records the outcome of an attempt that `begin` allowed; `null` = no password was checked.
   * `login` when `beginAccount` allowed it too. Returns the burst when this failure started the
   * account's backoff (AccountThrottle).
   */
  finish(address: string, outcome: 'success' | 'failure' | null, login?: string): AccountBurst | null {
    const key = sourceKey(address);
    const burst = login === undefined ? null : this.accounts.finish(login.slice(0, MAX_TRACKED_LOGIN), key, outcome);
    this.finishAddress(key, outcome);
    return burst;
  }

  private finishAddress(address: string, outcome: 'success' | 'failure' | null): void {
    const state = this.touch(address);
    state.inFlight = Math.max(0, state.inFlight - 1);
    if (outcome === 'success') {
      state.failures = 0;
      state.blockedUntil = 0;
    } else if (outcome === 'failure') {
      state.failures += 1;
      const over = state.failures - this.freeFailures;
      if (over >= 0) {
        // 1 s after the 5th failure, 2 s after the 6th, ... capped.
        state.blockedUntil = this.clock.now() + backoffDelay(this.baseDelayMs, this.maxDelayMs, over);
      }
    }
    if (state.failures === 0 && state.inFlight === 0) this.states.delete(address);
  }

  private touch(address: string): AddressState {
    return touchLru(this.states, address, () => ({ failures: 0, blockedUntil: 0, inFlight: 0 }), this.maxAddresses);
  }
}
