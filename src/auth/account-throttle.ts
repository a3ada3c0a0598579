/**
 * Per-account backoff for POST /api/login, beside the per-address one (docs/security.md
 * "Logins"). It answers distributed guessing: many addresses trying one login meet no
 * per-address delay, so failures are also counted per login name.
 *   - 10 consecutive failures for one login name (from any addresses) are free; after that, the
 *     name is refused for 1 s, doubling with every further failure, at most 60 s. The short cap is
 *     deliberate: an attacker can slow the real user down, never lock them out for long.
 *   - Addresses that logged in to the name successfully before (the last 8, remembered while the
 *     name is) are exempt: the administrator's own workstation is never held back by strangers'
 *     guesses; it still has its own per-address throttle.
 *   - Attempts in flight count against the free failures (a parallel burst gets at most the free
 *     number of password checks through, then one at a time).
 *   - A success resets the name's failures. Any name is tracked, existing or not, so the answer
 *     does not tell which logins exist.
 *   - Memory: the names of real accounts (`knownLogin`) are never evicted, so no amount of other
 *     names tried gives a real account its free failures back (#28.10); they are as many as the
 *     users. Every other name lives in an LRU of at most 10,000: evicting one costs nothing, since
 *     no password can succeed for it.
 * The start of a name's backoff is reported as a burst (distinct addresses involved), once per
 * episode, for the login_failed internal event.
 */
import type { Clock } from '../core/clock.js';
import { admitAttempt, backoffDelay, touchLru, type AttemptState, type ThrottleDecision } from './backoff.js';

export interface AccountThrottleOptions {
  readonly clock: Clock;
  readonly freeFailures?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly maxAccounts?: number;
  readonly trustedAddresses?: number;
  /** True for a login name a user record has now; without it every name is LRU-evictable. */
  readonly knownLogin?: (login: string) => boolean;
}

export interface AccountBurst {
  readonly failures: number;
  readonly addresses: number;
}

interface AccountState extends AttemptState {
  /** Distinct addresses of the current run of failures (bounded). */
  failingAddresses: Set<string>;
  /** Addresses that logged in successfully, oldest first. */
  trusted: string[];
  burstReported: boolean;
}

const MAX_FAILING_ADDRESSES = 1000;

export class AccountThrottle {
  private readonly clock: Clock;
  private readonly freeFailures: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxAccounts: number;
  private readonly trustedAddresses: number;
  private readonly knownLogin: (login: string) => boolean;
  /** Real accounts' names: bounded by the user count, never evicted. */
  private readonly accountStates = new Map<string, AccountState>();
  /** Names no user has: an LRU (insertion order; re-inserted on use). */
  private readonly otherStates = new Map<string, AccountState>();

  constructor(options: AccountThrottleOptions) {
    this.clock = options.clock;
    this.freeFailures = options.freeFailures ?? 10;
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.maxAccounts = options.maxAccounts ?? 10_000;
    this.trustedAddresses = options.trustedAddresses ?? 8;
    this.knownLogin = options.knownLogin ?? (() => false);
  }

  /** Names remembered: real accounts' and others' (for tests and metrics). */
  size(): { accounts: number; others: number } {
    return { accounts: this.accountStates.size, others: this.otherStates.size };
  }

  /** Call after the per-address check allowed the attempt; when allowed, call `finish` once. */
  begin(login: string, address: string): ThrottleDecision {
    const state = this.touch(login);
    // An address that logged in to this name before is never held back by the name's backoff.
    if (!state.trusted.includes(address)) return admitAttempt(state, this.clock.now(), this.freeFailures);
    state.inFlight += 1;
    return { allowed: true };
  }

  /** The outcome of an allowed attempt; returns the burst when this failure started the name's backoff. */
  finish(login: string, address: string, outcome: 'success' | 'failure' | null): AccountBurst | null {
    const state = this.touch(login);
    state.inFlight = Math.max(0, state.inFlight - 1);
    let burst: AccountBurst | null = null;
    if (outcome === 'success') {
      state.failures = 0;
      state.blockedUntil = 0;
      state.failingAddresses.clear();
      state.burstReported = false;
      state.trusted = [...state.trusted.filter((a) => a !== address), address].slice(-this.trustedAddresses);
    } else if (outcome === 'failure') {
      state.failures += 1;
      if (state.failingAddresses.size < MAX_FAILING_ADDRESSES) state.failingAddresses.add(address);
      const over = state.failures - this.freeFailures;
      if (over >= 0) {
        state.blockedUntil = this.clock.now() + backoffDelay(this.baseDelayMs, this.maxDelayMs, over);
        if (!state.burstReported) {
          state.burstReported = true;
          burst = { failures: state.failures, addresses: state.failingAddresses.size };
        }
      }
    }
    if (state.failures === 0 && state.inFlight === 0 && state.trusted.length === 0) {
      this.accountStates.delete(login);
      this.otherStates.delete(login);
    }
    return burst;
  }

  private touch(login: string): AccountState {
    const fresh = (): AccountState => ({
      failures: 0,
      blockedUntil: 0,
      inFlight: 0,
      failingAddresses: new Set(),
      trusted: [],
      burstReported: false,
    });
    // A state already held as a real account's stays there until it is idle (a name deleted meanwhile included).
    const held = this.accountStates.get(login);
    if (held) return held;
    if (!this.knownLogin(login)) return touchLru(this.otherStates, login, fresh, this.maxAccounts);
    // The name became an account: its earlier failures come along.
    const state = this.otherStates.get(login) ?? fresh();
    this.otherStates.delete(login);
    this.accountStates.set(login, state);
    if (this.accountStates.size > this.maxAccounts) this.forgetDeletedAccounts();
    return state;
  }

  /** Only deleted users' names can pile up among the accounts; the idle ones among them go. */
  private forgetDeletedAccounts(): void {
    for (const [login, state] of this.accountStates) {
      if (state.inFlight === 0 && !this.knownLogin(login)) this.accountStates.delete(login);
    }
  }
}
