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
