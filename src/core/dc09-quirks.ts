/**
 * The DC-09 deviations a receiver may tolerate (docs/dc09.md §12 "Tolerances"), in a fixed order:
 * an object's record keeps the ones its panel showed as a bit mask (bit i = DC09_QUIRKS[i]), so
 * the order is part of the stored format: append, never reorder.
 */
export const DC09_QUIRKS = ['binary-crc', 'cr-counted', 'trailing-bytes', 'empty-line', 'text-account'] as const;

export type Dc09QuirkName = (typeof DC09_QUIRKS)[number];

export function quirkMask(quirks: readonly Dc09QuirkName[]): number {
  let mask = 0;
  for (const quirk of quirks) mask |= 1 << DC09_QUIRKS.indexOf(quirk);
  return mask;
}

/** The names in a mask, in DC09_QUIRKS order; bits this build does not know are ignored. */
export function quirkNames(mask: number): Dc09QuirkName[] {
  return DC09_QUIRKS.filter((_, i) => (mask & (1 << i)) !== 0);
}
