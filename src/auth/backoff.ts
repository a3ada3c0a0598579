/** Shared by the login throttles (per address, per account): the doubling wait and the bounded memory. */

/** The wait after the `over`-th failure beyond the free ones: `baseMs`, doubling, at most `maxMs` (2^20 keeps the shift exact). */
export function backoffDelay(baseMs: number, maxMs: number, over: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(over, 20));
}

/** `map` used as an LRU (iteration order = insertion order): `key` moves to the end (created if new); the oldest beyond `max` go. */
export function touchLru<K, V>(map: Map<K, V>, key: K, create: () => V, max: number): V {
  let value = map.get(key);
  if (value === undefined) value = create();
  else map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
  return value;
}

/** What a throttle answers before an attempt. */
export type ThrottleDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterS: number };

/** The part of a throttle's state the admission check reads and bumps. */
export interface AttemptState {
  failures: number;
  blockedUntil: number;
  inFlight: number;
}

/**
 * The admission check both throttles share: refused while the backoff window runs, and never more
 * attempts in flight than failures still free (so parallel guesses cannot overrun the budget);
 * an allowed attempt is counted in flight until its `finish`.
 */
export function admitAttempt(state: AttemptState, now: number, freeFailures: number): ThrottleDecision {
  if (now < state.blockedUntil) {
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((state.blockedUntil - now) / 1000)) };
  }
  const budget = Math.max(1, freeFailures - state.failures);
  if (state.inFlight >= budget) return { allowed: false, retryAfterS: 1 };
  state.inFlight += 1;
  return { allowed: true };
}
