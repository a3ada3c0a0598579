/**
 * partial_uid matching (docs/device-link.md §5): a partial UID names the device whose full UID
 * ends with it, compared case-insensitively as hex. Exactly one device may match.
 */

/** True when `partial` is a non-empty hex suffix of `uid` (either case on both sides). */
export function uidMatchesPartial(uid: string, partial: string): boolean {
  if (partial === '' || !/^[0-9A-Fa-f]+$/.test(partial)) return false;
  return uid.toUpperCase().endsWith(partial.toUpperCase());
}

export type PartialUidMatch<T> =
  | { readonly kind: 'one'; readonly item: T }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly count: number };

/**
 * Picks the one item whose UID ends with `partial`. The candidates are every device the caller
 * may see, connected or not: choosing among connected ones only would send a command to a
 * different device depending on who happens to be online.
 */
export function selectByPartialUid<T>(
  partial: string,
  items: Iterable<T>,
  uidOf: (item: T) => string,
): PartialUidMatch<T> {
  let found: T | undefined;
  let count = 0;
  for (const item of items) {
    if (!uidMatchesPartial(uidOf(item), partial)) continue;
    count += 1;
    found = item;
  }
  if (count === 0) return { kind: 'none' };
  if (count > 1) return { kind: 'ambiguous', count };
  return { kind: 'one', item: found as T };
}
